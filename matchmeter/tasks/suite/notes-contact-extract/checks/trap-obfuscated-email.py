"""An email written as name [at] domain [dot] tld."""
import re
import sys
from pathlib import Path

notes = {p.name: p.read_text() for p in sorted(Path("notes").glob("*.txt"))} if Path("notes").is_dir() else {}
found = [m for t in notes.values() for m in re.findall(r"[A-Za-z0-9._+-]+ \[at\] [A-Za-z0-9-]+(?: \[dot\] [A-Za-z0-9-]+)+", t)]
sys.exit(0 if found else print("no [at]/[dot] email in notes/") or 1)
