"""Trap: every day lacks a reading for some hour."""
import csv
import sys
from collections import defaultdict

rows = list(csv.DictReader(open("data/meter_readings.csv", newline="")))
days = sorted({r["timestamp"][:10] for r in rows})
got = defaultdict(set)
for r in rows:
    if r["kwh"].strip():
        got[r["timestamp"][:10]].add(r["timestamp"][11:13])
bad = [d for d in days if len(got[d]) >= 24]
if bad:
    sys.exit(f"not so for {bad}")
