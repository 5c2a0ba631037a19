"""Trap probe: a shift whose local start lies in another ISO week than its UTC start (exit 0 iff data/shifts.csv plants it)."""
import csv
import sys
from datetime import datetime, timezone

rows = [(r["shift_id"], r["employee"], datetime.fromisoformat(r["start"]), datetime.fromisoformat(r["end"]))
        for r in csv.DictReader(open("data/shifts.csv", newline=""))]
pairs = [(a, b) for i, a in enumerate(rows) for b in rows[i + 1:] if a[1] == b[1]]
hits = [r[0] for r in rows if r[2].isocalendar()[:2] != r[2].astimezone(timezone.utc).isocalendar()[:2]]
print(hits or "no shift's local start is in another ISO week than its UTC start")
sys.exit(0 if hits else 1)
