"""A job line with fewer than five time fields before its command."""
import re
import sys
from pathlib import Path

text = Path("crontab.txt").read_text() if Path("crontab.txt").is_file() else ""
rows = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
jobs = [r.split(None, 5) for r in rows if not re.fullmatch(r"[A-Za-z_]\w*=.*", r) and not r.startswith("@")]
full = [t for t in jobs if len(t) == 6]
found = [r for r in rows if not r.startswith("@") and not re.fullmatch(r"[A-Za-z_]\w*=.*", r) and len(r.split()) < 6]
sys.exit(0 if found else print("crontab.txt has no line with too few fields") or 1)
