"""A file gone from its old path with a file of the same name only in new but other bytes (no rename)."""
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
fresh = {p: new[p][0] for p in new if p not in old}
found = [p for p in old if p not in new and old[p][0] not in fresh.values()
         and any(Path(q).name == Path(p).name and d != old[p][0] for q, d in fresh.items())]
sys.exit(0 if found else print("no file moved under the same name with other bytes") or 1)
