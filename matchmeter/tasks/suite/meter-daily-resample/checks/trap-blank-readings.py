"""Trap: every day has an hour that arrived only blank."""
import csv
import sys
from collections import defaultdict

rows = list(csv.DictReader(open("data/meter_readings.csv", newline="")))
days = sorted({r["timestamp"][:10] for r in rows})
have = defaultdict(set)
for r in rows:
    have[r["timestamp"]].add(r["kwh"].strip())
bad = [d for d in days if not any(v == {""} and t[:10] == d for t, v in have.items())]
if bad:
    sys.exit(f"not so for {bad}")
