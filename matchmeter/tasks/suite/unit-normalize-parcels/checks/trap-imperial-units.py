"""Trap probe: an imperial weight (lb or oz) and an imperial length (in)."""
import csv
import re
import sys

rows = list(csv.DictReader(open("data/parcels.csv", newline="")))
units = [re.sub(r"[^A-Za-z]", "", r[k]) for r in rows for k in ("weight", "length")]
found = {u.lower() for u in units} & {"lb", "oz", "in"}
print(sorted(found))
sys.exit(0 if found & {"lb", "oz"} and "in" in found else 1)
