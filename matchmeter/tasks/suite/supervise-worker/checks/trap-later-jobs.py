"""Trap probe: worker.py waits for new jobs when queue/ is empty (it does not end with the queue), so jobs that
arrive later need a supervisor that keeps going after the queue first drains."""
import re
import sys
from pathlib import Path

src = Path("worker.py").read_text() if Path("worker.py").is_file() else ""
polls = re.search(r"if not jobs:\s*\n\s*time\.sleep\([\d.]+\)\s*\n\s*continue", src)
sys.exit(0 if polls and Path("queue").is_dir() else "worker.py does not wait on an empty queue, or there is no queue/")
