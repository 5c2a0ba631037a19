"""Amounts in every format: 7.5, 40 and 0.08."""
import sys
from pathlib import Path

files = {p: p.read_bytes() for p in Path("data").glob("*.csv")}


def amounts(raw):
    return [ln.split(b",")[-1].strip() for ln in raw.splitlines()[1:] if ln.count(b",") >= 2]


all_amounts = [a for raw in files.values() for a in amounts(raw)]
kinds = {"7.5": any(b"." in a and len(a.split(b".")[1]) == 1 for a in all_amounts),
         "40": any(a.isdigit() for a in all_amounts), "0.08": any(a.startswith(b"0.0") for a in all_amounts)}
missing = [k for k, ok in kinds.items() if not ok]
sys.exit(0 if not missing else print(f"no amount written like {missing}") or 1)
