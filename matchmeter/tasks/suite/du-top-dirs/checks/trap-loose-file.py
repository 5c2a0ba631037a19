"""A loose file directly in data/ larger than every project (it is no project)."""
import sys
from pathlib import Path

data = Path("data")
projects = {p.name: sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) for p in data.glob("*") if p.is_dir()}
top = sorted(projects, key=projects.get, reverse=True)[:3]

loose = [f for f in data.glob("*") if f.is_file() and projects and f.stat().st_size > max(projects.values())]
sys.exit(0 if loose else print("no loose file in data/ larger than every project") or 1)
