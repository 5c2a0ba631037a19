"""Trap probe: worker.py takes the first queued job with no lock, so two workers at once would race for the same
job; queue/ holds several jobs."""
import sys
from pathlib import Path

src = Path("worker.py").read_text() if Path("worker.py").is_file() else ""
jobs = list(Path("queue").glob("*.job")) if Path("queue").is_dir() else []
unlocked = "jobs[0]" in src and not any(w in src for w in ("fcntl", "flock", "lockf"))
sys.exit(0 if unlocked and len(jobs) >= 2 else "worker.py locks its jobs, or fewer than two jobs are queued")
