"""Trap probe: release.conf names the project and version (the prefix), and src/ has files at its top level and
in subdirectories, all of which must move under <name>-<version>/."""
import re
import sys
from pathlib import Path

conf = dict(re.findall(r"^(\w+) *= *(\S+)$", Path("release.conf").read_text(), re.M)) if Path("release.conf").is_file() else {}
if not conf.get("name") or not conf.get("version"):
    sys.exit("release.conf has no name and version")
src = Path("src")
top = [p for p in src.glob("*") if p.is_file()] if src.is_dir() else []
deep = [p for p in src.glob("*/*") if p.is_file()] if src.is_dir() else []
sys.exit(0 if top and deep and Path("src/README.md").is_file() else "src/ lacks README.md, top-level files or nested files")
