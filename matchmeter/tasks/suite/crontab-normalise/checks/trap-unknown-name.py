"""An unknown @macro and a job line with an unknown month/weekday name (both must go to crontab.errors)."""
import re
import sys
from pathlib import Path

MACROS = {"@hourly", "@daily", "@midnight", "@weekly", "@monthly", "@yearly", "@annually"}
NAMES = set("jan feb mar apr may jun jul aug sep oct nov dec sun mon tue wed thu fri sat".split())
text = Path("crontab.txt").read_text() if Path("crontab.txt").is_file() else ""
rows = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().startswith("#")]
macro = [r for r in rows if r.startswith("@") and r.split()[0].lower() not in MACROS]
name = [r for r in rows if not r.startswith("@") and len(r.split(None, 5)) == 6
        and any(w.lower() not in NAMES for f in r.split(None, 5)[3:5] for w in re.findall(r"[A-Za-z]+", f))]
missing = [what for what, got in (("an unknown @macro", macro), ("an unknown name", name)) if not got]
sys.exit(print("crontab.txt lacks " + " and ".join(missing)) or 1 if missing else 0)
