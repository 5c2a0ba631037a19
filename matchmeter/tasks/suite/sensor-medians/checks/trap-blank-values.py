"""Trap: every sensor has a blank reading."""
import csv
import sys

rows = list(csv.DictReader(open("data/readings.csv", newline="")))
sensors = {r["sensor_id"] for r in rows}
bad = sorted(sensors - {r["sensor_id"] for r in rows if not r["value"].strip()})
if bad or not sensors:
    sys.exit(f"missing for {bad or 'every sensor'}")
