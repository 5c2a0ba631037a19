"""A service whose archives are all older than 30 days (its two newest must stay)."""
import sys
import time
from pathlib import Path

now = time.time()
files = {p.name: (now - p.stat().st_mtime) / 86400 for p in Path("logs").iterdir()} if Path("logs").is_dir() else {}

svcs = {n.split(".")[0] for n in files}
found = [s for s in svcs if [a for n, a in files.items() if n.split(".")[0] == s] and all(a > 30 and n.endswith(".gz") for n, a in files.items() if n.split(".")[0] == s)]
sys.exit(0 if found else print("no service with only archives older than 30 days") or 1)
