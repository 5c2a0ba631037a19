"""local.env sets a key to empty (it must override the other files)."""
import re
import sys
from pathlib import Path

LINE = re.compile(r"\s*(?:export\s+)?([A-Za-z_]\w*)=(.*)")


def pairs(name):
    p = Path("config", f"{name}.env")
    lines = p.read_text().splitlines() if p.is_file() else []
    return [(m.group(1), m.group(2).strip().strip("\"'")) for ln in lines
            if (m := LINE.fullmatch(ln)) and not ln.lstrip().startswith("#")]


found = [k for k, v in pairs("local") if v == "" and any(k == j for f in ("defaults", "production") for j, _ in pairs(f))]
sys.exit(0 if found else print("local.env empties no key the other files set") or 1)
