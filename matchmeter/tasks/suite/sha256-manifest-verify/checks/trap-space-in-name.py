"""Trap probe: a file under release/ whose path has a space (exit 0 iff so)."""
import sys
from pathlib import Path

hits = [p.as_posix() for p in Path("release").rglob("* *") if p.is_file()]
print(hits or "no file under release/ with a space in its name")
sys.exit(0 if hits else 1)
