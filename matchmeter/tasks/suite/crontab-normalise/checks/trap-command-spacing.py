"""A job whose command has inner runs of whitespace (kept exactly as written)."""
import re
import sys
from pathlib import Path

text = Path("crontab.txt").read_text() if Path("crontab.txt").is_file() else ""
rows = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
jobs = [r.split(None, 5) for r in rows if not re.fullmatch(r"[A-Za-z_]\w*=.*", r) and not r.startswith("@")]
full = [t for t in jobs if len(t) == 6]
found = [r for r in rows if any(re.search(r"\s\s|\t", t[5]) for t in full if r.split(None, 5) == t)]
sys.exit(0 if found else print("crontab.txt has no line with a command with inner spacing") or 1)
