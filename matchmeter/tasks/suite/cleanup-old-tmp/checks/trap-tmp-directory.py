"""A directory named *.tmp older than 7 days holding a file (not a .tmp file: it must stay)."""
import sys
import time
from pathlib import Path

cut = time.time() - 7 * 86400
found = [p for p in Path("build").rglob("*.tmp") if p.is_dir() and p.stat().st_mtime < cut and any(p.iterdir())]
sys.exit(0 if found else print("no old directory named *.tmp with content under build/") or 1)
