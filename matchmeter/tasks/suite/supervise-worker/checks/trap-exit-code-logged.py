"""Trap probe: the worker's deliberate exit has a code of its own (3, not 0) and happens at least once for the
queued jobs, so the log lines have a code to carry."""
import re
import sys
from pathlib import Path

src = Path("worker.py").read_text() if Path("worker.py").is_file() else ""
m = re.search(r"(?m)^MAX_JOBS = (\d+)$", src)
jobs = list(Path("queue").glob("*.job")) if Path("queue").is_dir() else []
if not m or not re.search(r"sys\.exit\(([1-9]\d*)\)", src):
    sys.exit("worker.py has no MAX_JOBS or no non-zero deliberate exit")
sys.exit(0 if len(jobs) >= int(m.group(1)) else "too few jobs for a deliberate exit")
