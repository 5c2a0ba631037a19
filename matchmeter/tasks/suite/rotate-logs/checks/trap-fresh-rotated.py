"""A rotated <svc>.log.N modified within the last day (it must stay as it is)."""
import sys
import time
from pathlib import Path

now = time.time()
files = {p.name: (now - p.stat().st_mtime) / 86400 for p in Path("logs").iterdir()} if Path("logs").is_dir() else {}

found = [n for n, a in files.items() if ".log." in n and not n.endswith(".gz") and a < 1]
sys.exit(0 if found else print("no fresh rotated log") or 1)
