"""A region (CSV file name) with a space in it."""
import sys
from pathlib import Path

files = {p: p.read_bytes() for p in Path("data").glob("*.csv")}


def amounts(raw):
    return [ln.split(b",")[-1].strip() for ln in raw.splitlines()[1:] if ln.count(b",") >= 2]


found = [p for p in files if " " in p.stem]
sys.exit(0 if found else print("no data/*.csv name holds a space") or 1)
