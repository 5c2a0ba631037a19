"""An old .tmp file three directories deep (build/a/b/x.tmp: it must go)."""
import sys
import time
from pathlib import Path

cut = time.time() - 7 * 86400
found = [p for p in Path("build").glob("*/*/**/*.tmp") if p.is_file() and p.stat().st_mtime < cut]
sys.exit(0 if found else print("no old .tmp file three levels deep under build/") or 1)
