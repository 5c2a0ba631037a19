"""A data file whose last row has no final newline."""
import sys
from pathlib import Path

files = {p: p.read_bytes() for p in Path("data").glob("*.csv")}


def amounts(raw):
    return [ln.split(b",")[-1].strip() for ln in raw.splitlines()[1:] if ln.count(b",") >= 2]


found = [p for p, raw in files.items() if raw and not raw.endswith(b"\n") and amounts(raw)]
sys.exit(0 if found else print("every data file ends with a newline") or 1)
