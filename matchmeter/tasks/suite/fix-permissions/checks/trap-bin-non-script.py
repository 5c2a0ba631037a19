"""A file in site/bin/ that is not *.sh and not 644 (`chmod 755 site/bin/*` leaves it wrong)."""
import sys
from pathlib import Path

bad = [p for p in Path("site/bin").glob("*")
       if p.is_file() and not p.name.endswith(".sh") and p.stat().st_mode & 0o777 != 0o644]
sys.exit(0 if bad else print("no non-*.sh file in site/bin/ with a mode other than 644") or 1)
