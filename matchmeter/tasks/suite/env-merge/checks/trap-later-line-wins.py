"""A file sets one key twice with different values (the later line wins)."""
import re
import sys
from pathlib import Path

LINE = re.compile(r"\s*(?:export\s+)?([A-Za-z_]\w*)=(.*)")


def pairs(name):
    p = Path("config", f"{name}.env")
    lines = p.read_text().splitlines() if p.is_file() else []
    return [(m.group(1), m.group(2).strip().strip("\"'")) for ln in lines
            if (m := LINE.fullmatch(ln)) and not ln.lstrip().startswith("#")]


found = [(f, k) for f in ("defaults", "production", "local") for k in {k for k, _ in pairs(f)}
         if len({v for j, v in pairs(f) if j == k}) > 1]
sys.exit(0 if found else print("no file sets a key twice with different values") or 1)
