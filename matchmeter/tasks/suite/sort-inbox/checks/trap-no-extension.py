"""An inbox file without an extension."""
import sys
from pathlib import Path

names = [p.name for p in Path("inbox").iterdir() if p.is_file()] if Path("inbox").is_dir() else []

found = [n for n in names if "." not in n]
sys.exit(0 if found else print("no inbox file without an extension") or 1)
