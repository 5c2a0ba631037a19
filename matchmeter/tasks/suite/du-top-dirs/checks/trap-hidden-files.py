"""A top-three project holds a hidden file."""
import sys
from pathlib import Path

data = Path("data")
projects = {p.name: sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) for p in data.glob("*") if p.is_dir()}
top = sorted(projects, key=projects.get, reverse=True)[:3]

hidden = [p for p in top if any(f.name.startswith(".") and f.is_file() for f in (data / p).rglob("*"))]
sys.exit(0 if hidden else print("no top-three project holds a hidden file") or 1)
