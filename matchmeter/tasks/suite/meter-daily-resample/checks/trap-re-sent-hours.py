"""Trap: every day has an hour re-sent with a value."""
import csv
import sys
from collections import defaultdict

rows = list(csv.DictReader(open("data/meter_readings.csv", newline="")))
days = sorted({r["timestamp"][:10] for r in rows})
sent = defaultdict(int)
for r in rows:
    sent[r["timestamp"]] += bool(r["kwh"].strip())
bad = [d for d in days if not any(n > 1 and t[:10] == d for t, n in sent.items())]
if bad:
    sys.exit(f"not so for {bad}")
