"""An old .tmp file with a space in its name (it must go)."""
import sys
import time
from pathlib import Path

cut = time.time() - 7 * 86400
found = [p for p in Path("build").rglob("* *.tmp") if p.is_file() and p.stat().st_mtime < cut]
sys.exit(0 if found else print("no old .tmp file with a space in its name under build/") or 1)
