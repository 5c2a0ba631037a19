"""A repairable broken link (replacing it with a copy is what the instruction rules out)."""
import os
import sys
from pathlib import Path

links = [p for p in Path("site").rglob("*") if p.is_symlink()] if Path("site").is_dir() else []

found = [p for p in links if not p.exists() and "static/" in os.readlink(p)
         and Path("assets", os.readlink(p).split("static/", 1)[1]).is_file()]
sys.exit(0 if found else print("no repairable broken link") or 1)
