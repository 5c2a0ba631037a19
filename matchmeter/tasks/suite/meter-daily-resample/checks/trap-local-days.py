"""Trap: the stamps carry a non-UTC offset and some reading falls in a day's first local hour (another UTC day)."""
import csv
import sys
from collections import defaultdict

rows = list(csv.DictReader(open("data/meter_readings.csv", newline="")))
days = sorted({r["timestamp"][:10] for r in rows})
bad = [] if any(r["timestamp"][11:13] == "00" and r["kwh"].strip() for r in rows) else ["midnight hours"]
bad += [r["timestamp"] for r in rows if r["timestamp"].endswith(("+00:00", "Z"))][:1]
if bad:
    sys.exit(f"not so for {bad}")
