"""A link that already works, into assets/."""
import os
import sys
from pathlib import Path

links = [p for p in Path("site").rglob("*") if p.is_symlink()] if Path("site").is_dir() else []

found = [p for p in links if "assets/" in os.readlink(p) and p.exists()]
sys.exit(0 if found else print("no working assets/ link under site/") or 1)
