"""A <svc>.log not modified for more than a day (it is compressed like the rotated ones)."""
import sys
import time
from pathlib import Path

now = time.time()
files = {p.name: (now - p.stat().st_mtime) / 86400 for p in Path("logs").iterdir()} if Path("logs").is_dir() else {}

found = [n for n, a in files.items() if n.endswith(".log") and a > 1]
sys.exit(0 if found else print("no stale <svc>.log") or 1)
