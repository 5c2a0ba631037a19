"""Trap probe: a unit other than kg/cm written in upper case."""
import csv
import re
import sys

rows = list(csv.DictReader(open("data/parcels.csv", newline="")))
units = [re.sub(r"[^A-Za-z]", "", r[k]) for r in rows for k in ("weight", "length")]
hits = [u for u in units if u != u.lower() and u.lower() not in ("kg", "cm")]
print(hits or "no upper-case non-base unit")
sys.exit(0 if hits else 1)
