"""An inbox file with two dots in its name (a.tar.gz)."""
import sys
from pathlib import Path

names = [p.name for p in Path("inbox").iterdir() if p.is_file()] if Path("inbox").is_dir() else []

found = [n for n in names if n.count(".") > 1]
sys.exit(0 if found else print("no inbox file with two dots") or 1)
