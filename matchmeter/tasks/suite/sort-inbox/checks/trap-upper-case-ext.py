"""An inbox file whose extension is not lower case."""
import sys
from pathlib import Path

names = [p.name for p in Path("inbox").iterdir() if p.is_file()] if Path("inbox").is_dir() else []

found = [n for n in names if "." in n and n.rsplit(".", 1)[1] != n.rsplit(".", 1)[1].lower()]
sys.exit(0 if found else print("no inbox file with an upper-case extension") or 1)
