"""Trap probe: a shift starting (UTC) on a date whose ISO week-year is not its calendar year (exit 0 iff data/shifts.csv plants it)."""
import csv
import sys
from datetime import datetime, timezone

rows = [(r["shift_id"], r["employee"], datetime.fromisoformat(r["start"]), datetime.fromisoformat(r["end"]))
        for r in csv.DictReader(open("data/shifts.csv", newline=""))]
pairs = [(a, b) for i, a in enumerate(rows) for b in rows[i + 1:] if a[1] == b[1]]
hits = [r[0] for r in rows if r[2].astimezone(timezone.utc).isocalendar()[0] != r[2].astimezone(timezone.utc).year]
print(hits or "no shift starts (UTC) in a week of another ISO week-year")
sys.exit(0 if hits else 1)
