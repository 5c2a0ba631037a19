"""Trap probe: two shifts of one employee that overlap in time but not on their wall-clock times (exit 0 iff data/shifts.csv plants it)."""
import csv
import sys
from datetime import datetime, timezone

rows = [(r["shift_id"], r["employee"], datetime.fromisoformat(r["start"]), datetime.fromisoformat(r["end"]))
        for r in csv.DictReader(open("data/shifts.csv", newline=""))]
pairs = [(a, b) for i, a in enumerate(rows) for b in rows[i + 1:] if a[1] == b[1]]
def naive(t):
    return t.replace(tzinfo=None)


hits = [(a[0], b[0]) for a, b in pairs if a[2] < b[3] and b[2] < a[3]
        and not (naive(a[2]) < naive(b[3]) and naive(b[2]) < naive(a[3]))]
print(hits or "no overlap that the local wall-clock times hide")
sys.exit(0 if hits else 1)
