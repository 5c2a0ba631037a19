"""The top three totals are not whole kilobytes (a size in KiB or kB differs from the bytes)."""
import sys
from pathlib import Path

data = Path("data")
projects = {p.name: sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) for p in data.glob("*") if p.is_dir()}
top = sorted(projects, key=projects.get, reverse=True)[:3]

whole = [p for p in top if projects[p] % 1000 == 0 or projects[p] % 1024 == 0]
sys.exit(0 if len(top) == 3 and not whole else print(f"top three {top}: whole kilobytes {whole}") or 1)
