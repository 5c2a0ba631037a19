"""A link whose static/ target exists nowhere (neither under static/ nor assets/)."""
import os
import sys
from pathlib import Path

links = [p for p in Path("site").rglob("*") if p.is_symlink()] if Path("site").is_dir() else []

found = [p for p in links if "static/" in os.readlink(p) and not Path("assets", os.readlink(p).split("static/", 1)[1]).is_file()]
sys.exit(0 if found else print("no dead static/ link under site/") or 1)
