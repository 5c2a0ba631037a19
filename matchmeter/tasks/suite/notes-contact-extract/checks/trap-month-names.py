"""A date written with a month name (March 5, 2024 / 5 March 2024 / Mar 5, 2024)."""
import re
import sys
from pathlib import Path

notes = {p.name: p.read_text() for p in sorted(Path("notes").glob("*.txt"))} if Path("notes").is_dir() else {}
month = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
found = [m for t in notes.values() for m in re.findall(rf"\b{month}\.? \d{{1,2}}, \d{{4}}\b|\b\d{{1,2}} {month} \d{{4}}\b", t)]
sys.exit(0 if found else print("no date with a month name in notes/") or 1)
