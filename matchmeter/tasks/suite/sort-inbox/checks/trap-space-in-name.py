"""An inbox file with a space in its name."""
import sys
from pathlib import Path

names = [p.name for p in Path("inbox").iterdir() if p.is_file()] if Path("inbox").is_dir() else []

found = [n for n in names if " " in n]
sys.exit(0 if found else print("no inbox file with a space") or 1)
