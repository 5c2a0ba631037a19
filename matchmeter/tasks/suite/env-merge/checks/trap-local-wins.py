"""local.env and production.env both set a non-empty value for a key, differently (local wins)."""
import re
import sys
from pathlib import Path

LINE = re.compile(r"\s*(?:export\s+)?([A-Za-z_]\w*)=(.*)")


def pairs(name):
    p = Path("config", f"{name}.env")
    lines = p.read_text().splitlines() if p.is_file() else []
    return [(m.group(1), m.group(2).strip().strip("\"'")) for ln in lines
            if (m := LINE.fullmatch(ln)) and not ln.lstrip().startswith("#")]


prod = dict(pairs("production"))
found = [k for k, v in pairs("local") if v and k in prod and prod[k] != v]
sys.exit(0 if found else print("no key set non-empty by both local.env and production.env") or 1)
