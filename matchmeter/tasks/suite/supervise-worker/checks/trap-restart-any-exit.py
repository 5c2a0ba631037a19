"""Trap probe: worker.py exits on purpose (code 3) after MAX_JOBS jobs and queue/ holds more jobs than that, so
the worker must be restarted; the verifier also kills it (exit by signal), which must restart it just the same."""
import re
import sys
from pathlib import Path

src = Path("worker.py").read_text() if Path("worker.py").is_file() else ""
m = re.search(r"(?m)^MAX_JOBS = (\d+)$", src)
jobs = list(Path("queue").glob("*.job")) if Path("queue").is_dir() else []
if not m or "sys.exit(3)" not in src:
    sys.exit("worker.py has no MAX_JOBS or no deliberate exit 3")
sys.exit(0 if len(jobs) > int(m.group(1)) else f"{len(jobs)} jobs: no more than MAX_JOBS, no restart needed")
