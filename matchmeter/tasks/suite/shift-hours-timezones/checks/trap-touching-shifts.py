"""Trap probe: one shift ending exactly when another of the same employee starts, in different offsets (exit 0 iff data/shifts.csv plants it)."""
import csv
import sys
from datetime import datetime, timezone

rows = [(r["shift_id"], r["employee"], datetime.fromisoformat(r["start"]), datetime.fromisoformat(r["end"]))
        for r in csv.DictReader(open("data/shifts.csv", newline=""))]
pairs = [(a, b) for i, a in enumerate(rows) for b in rows[i + 1:] if a[1] == b[1]]
hits = [(a[0], b[0]) for a, b in pairs if (a[3] == b[2] or b[3] == a[2]) and a[2].utcoffset() != b[2].utcoffset()]
print(hits or "no shift ends exactly when another of the same employee starts (in another offset)")
sys.exit(0 if hits else 1)
