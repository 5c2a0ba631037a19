"""A numeric month/day/year date whose day is also a month (read as day/month it is another date)."""
import re
import sys
from pathlib import Path

notes = {p.name: p.read_text() for p in sorted(Path("notes").glob("*.txt"))} if Path("notes").is_dir() else {}
found = [(m, d) for t in notes.values() for m, d, _ in re.findall(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b", t)
         if 1 <= int(d) <= 12 and int(m) != int(d)]
sys.exit(0 if found else print("no numeric date m/d/yyyy with a day of 12 or less (and not the month) in notes/") or 1)
