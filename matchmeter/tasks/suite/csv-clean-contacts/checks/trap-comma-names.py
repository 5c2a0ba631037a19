"""Trap probe: a name holding a comma (a quoted CSV field)."""
import csv
import sys

with open("data/contacts.csv", newline="", encoding="utf-8") as fh:
    rows = list(csv.DictReader(fh))
names = [r["name"] for r in rows if "," in r["name"]]
print(names or "no name with a comma")
sys.exit(0 if names else 1)
