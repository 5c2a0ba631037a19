"""Trap: every sensor has a "NaN" reading."""
import csv
import sys

rows = list(csv.DictReader(open("data/readings.csv", newline="")))
sensors = {r["sensor_id"] for r in rows}
bad = sorted(sensors - {r["sensor_id"] for r in rows if r["value"].strip().lower() == "nan"})
if bad or not sensors:
    sys.exit(f"missing for {bad or 'every sensor'}")
