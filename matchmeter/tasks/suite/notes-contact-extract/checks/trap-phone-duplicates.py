"""A file writing the same number twice in different formats."""
import re
import sys
from pathlib import Path

notes = {p.name: p.read_text() for p in sorted(Path("notes").glob("*.txt"))} if Path("notes").is_dir() else {}
pat = r"(?<![\w.-])(?:\+?1[ .-])?\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}(?![\w-])"
found = []
for name, t in notes.items():
    raw = set(re.findall(pat, t))
    digits = [re.sub(r"\D", "", m)[-10:] for m in raw]
    found += [name] if len(digits) > len(set(digits)) else []
sys.exit(0 if found else print("no notes file writes one number in two formats") or 1)
