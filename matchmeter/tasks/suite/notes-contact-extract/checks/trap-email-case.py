"""An email written with capitals (the list holds it lower-cased)."""
import re
import sys
from pathlib import Path

notes = {p.name: p.read_text() for p in sorted(Path("notes").glob("*.txt"))} if Path("notes").is_dir() else {}
plain = r"[A-Za-z0-9._+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"
hidden = r"[A-Za-z0-9._+-]+ \[at\] [A-Za-z0-9-]+(?: \[dot\] [A-Za-z0-9-]+)+"
found = [m for t in notes.values() for m in re.findall(f"{plain}|{hidden}", t) if m != m.lower()]
sys.exit(0 if found else print("no email written with capitals in notes/") or 1)
