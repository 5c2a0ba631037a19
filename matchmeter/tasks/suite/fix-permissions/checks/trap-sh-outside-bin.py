"""An executable *.sh under site/ outside site/bin/ (it must become 644 like any other file)."""
import sys
from pathlib import Path

bad = [p for p in Path("site").rglob("*.sh")
       if p.is_file() and p.parent != Path("site/bin") and p.stat().st_mode & 0o111]
sys.exit(0 if bad else print("no executable *.sh under site/ outside site/bin/") or 1)
