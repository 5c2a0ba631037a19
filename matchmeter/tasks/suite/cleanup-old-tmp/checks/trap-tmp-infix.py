"""An old file whose name contains ".tmp" without ending in it (it must stay)."""
import sys
import time
from pathlib import Path

cut = time.time() - 7 * 86400
found = [p for p in Path("build").rglob("*.tmp*")
         if p.is_file() and not p.name.endswith(".tmp") and p.stat().st_mtime < cut]
sys.exit(0 if found else print("no old file with .tmp inside its name under build/") or 1)
