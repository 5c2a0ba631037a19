"""Trap probe: src/ holds names whose order matters: upper- and lower-case names in one directory, and a directory
beside a name that extends it ("x" and "x-extras"), which plain and per-component sorting order differently."""
import sys
from pathlib import Path

src = Path("src")
if not src.is_dir():
    sys.exit("no src/")
names = [p.name for p in src.iterdir()]
cased = any(n[0].isupper() for n in names) and any(n[0].islower() for n in names)
nested = any(p.is_dir() and any(q.name.startswith(p.name + "-") for q in src.iterdir()) for p in src.iterdir())
sys.exit(0 if cased and nested else f"src/ lacks mixed-case names ({cased}) or a dir beside its '-' extension ({nested})")
