"""vendor/ holds a mode that normalising it (dirs 755, files 644) would change."""
import sys
from pathlib import Path

root = Path("vendor")
odd = [p for p in [root, *root.rglob("*")] if root.is_dir()
       and p.stat().st_mode & 0o777 != (0o755 if p.is_dir() else 0o644)]
sys.exit(0 if odd else print("vendor/ has no mode other than dirs 755 / files 644") or 1)
