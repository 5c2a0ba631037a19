"""Trap probe: the queued jobs outlast the first worker (more jobs than MAX_JOBS), so later workers get new PIDs
that run/worker.pid must follow."""
import re
import sys
from pathlib import Path

src = Path("worker.py").read_text() if Path("worker.py").is_file() else ""
m = re.search(r"(?m)^MAX_JOBS = (\d+)$", src)
jobs = list(Path("queue").glob("*.job")) if Path("queue").is_dir() else []
sys.exit(0 if m and len(jobs) > 2 * int(m.group(1)) else "no MAX_JOBS, or the jobs fit in two workers' runs")
