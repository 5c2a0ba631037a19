"""Trap: every one of the four variables has blank cells."""
import csv
import sys

COLS = ["temperature_c", "humidity_pct", "pressure_hpa", "wind_ms"]
rows = list(csv.DictReader(open("data/station.csv", newline="")))
bad = [c for c in COLS if not any(not r[c].strip() for r in rows)]
if bad or not rows:
    sys.exit(f"no blank cell in {bad or COLS}")
