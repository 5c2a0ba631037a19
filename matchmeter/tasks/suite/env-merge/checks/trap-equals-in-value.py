"""A merged value holds "=" (cutting at the second "=" breaks it)."""
import re
import sys
from pathlib import Path

LINE = re.compile(r"\s*(?:export\s+)?([A-Za-z_]\w*)=(.*)")


def pairs(name):
    p = Path("config", f"{name}.env")
    lines = p.read_text().splitlines() if p.is_file() else []
    return [(m.group(1), m.group(2).strip().strip("\"'")) for ln in lines
            if (m := LINE.fullmatch(ln)) and not ln.lstrip().startswith("#")]


merged = dict(pairs("defaults") + pairs("production") + pairs("local"))
found = [k for k, v in merged.items() if "=" in v]
sys.exit(0 if found else print("no merged value holds =") or 1)
