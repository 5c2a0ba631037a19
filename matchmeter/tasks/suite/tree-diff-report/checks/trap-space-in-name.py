"""A path with a space that differs between the snapshots (word splitting loses it)."""
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
found = [p for p in set(old) | set(new) if " " in p and old.get(p) != new.get(p)]
sys.exit(0 if found else print("no changed path with a space") or 1)
