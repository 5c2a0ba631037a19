"""A number written with its country code (+1 415 555 0123 or 1-415-555-0123)."""
import re
import sys
from pathlib import Path

notes = {p.name: p.read_text() for p in sorted(Path("notes").glob("*.txt"))} if Path("notes").is_dir() else {}
found = [m for t in notes.values() for m in re.findall(r"\+1 \d{3} \d{3} \d{4}|(?<![\w.-])1-\d{3}-\d{3}-\d{4}", t)]
sys.exit(0 if found else print("no phone number written with its country code in notes/") or 1)
