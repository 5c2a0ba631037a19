"""An empty directory only in new (a directory, not a file: not added)."""
import hashlib
import os
import sys
from pathlib import Path

OLD, NEW = Path("snapshots/old"), Path("snapshots/new")
if not (OLD.is_dir() and NEW.is_dir()):
    sys.exit(print("no snapshots/old and snapshots/new") or 1)


def scan(top):
    return {p.relative_to(top).as_posix(): (hashlib.sha256(p.read_bytes()).digest(), os.access(p, os.X_OK))
            for p in top.rglob("*") if p.is_file()}


old, new = scan(OLD), scan(NEW)
both = [p for p in old if p in new]
found = [d for d in NEW.rglob("*") if d.is_dir() and not any(d.iterdir()) and not (OLD / d.relative_to(NEW)).exists()]
sys.exit(0 if found else print("no empty directory only in new") or 1)
