"""A file gone from its old path whose exact bytes are at a path only in new."""
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
fresh = {new[p][0] for p in new if p not in old}
found = [p for p in old if p not in new and old[p][0] in fresh]
sys.exit(0 if found else print("no file moved with the same bytes") or 1)
