"""Trap: the region with the most revenue is neither the one with the most rows nor the one with the most units."""
import csv
import sys
from collections import Counter, defaultdict

rows, units, rev = Counter(), Counter(), defaultdict(float)
for r in csv.DictReader(open("data/sales.csv", newline="")):
    rows[r["region"]] += 1
    units[r["region"]] += int(r["units"])
    rev[r["region"]] += int(r["units"]) * float(r["unit_price"])
top = max(rev, key=rev.get)
if top in (max(rows, key=rows.get), max(units, key=units.get)):
    sys.exit(f"{top} leads revenue and rows or units")
