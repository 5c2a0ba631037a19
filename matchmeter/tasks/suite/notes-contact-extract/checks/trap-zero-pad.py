"""A date written with a one-digit day (YYYY-MM-DD pads it)."""
import re
import sys
from pathlib import Path

notes = {p.name: p.read_text() for p in sorted(Path("notes").glob("*.txt"))} if Path("notes").is_dir() else {}
month = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
found = [m for t in notes.values()
         for m in re.findall(rf"\b\d{{1,2}}/\d/\d{{4}}\b|\b{month}\.? \d, \d{{4}}\b|(?<![\d/])\d {month} \d{{4}}\b", t)]
sys.exit(0 if found else print("no date with a one-digit day in notes/") or 1)
