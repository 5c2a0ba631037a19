"""Every project keeps bytes in a subdirectory."""
import sys
from pathlib import Path

data = Path("data")
projects = {p.name: sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) for p in data.glob("*") if p.is_dir()}
top = sorted(projects, key=projects.get, reverse=True)[:3]

flat = [p for p in projects if not any(f.is_file() for d in (data / p).iterdir() if d.is_dir() for f in d.rglob("*"))]
sys.exit(0 if projects and not flat else print(f"projects without files in a subdirectory: {flat or 'none at all'}") or 1)
