"""Trap probe: the workspace starts fresh: jobs wait in queue/, nothing has been done yet, and there is no start.sh,
run/ or worker running, so only what start.sh starts at verify time will work through them."""
import os
import sys
from pathlib import Path

jobs = list(Path("queue").glob("*.job")) if Path("queue").is_dir() else []
if not jobs or not Path("worker.py").is_file():
    sys.exit("no queued jobs or no worker.py")
if Path("start.sh").exists() or Path("run").exists() or list(Path("done").glob("*.out")):
    sys.exit("start.sh, run/ or done/*.out already exist")
here = os.path.realpath(".")
for entry in Path("/proc").iterdir():
    try:
        if entry.name.isdigit() and b"worker.py" in (entry / "cmdline").read_bytes() and os.path.realpath(entry / "cwd") == here:
            sys.exit(f"a worker already runs here (pid {entry.name})")
    except OSError:
        continue
