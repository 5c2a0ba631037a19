"""A CRLF file holding an amount with one decimal digit (7.5: a kept \\r breaks it)."""
import sys
from pathlib import Path

files = {p: p.read_bytes() for p in Path("data").glob("*.csv")}


def amounts(raw):
    return [ln.split(b",")[-1].strip() for ln in raw.splitlines()[1:] if ln.count(b",") >= 2]


found = [p for p, raw in files.items() if b"\r\n" in raw and any(len(a.split(b".")[-1]) == 1 and b"." in a for a in amounts(raw))]
sys.exit(0 if found else print("no CRLF data file with a one-decimal amount") or 1)
