"""Trap probe: a duplicate contact whose later row differs from the first (another signup date)."""
import csv
import sys

with open("data/contacts.csv", newline="", encoding="utf-8") as fh:
    rows = list(csv.DictReader(fh))
first, differ = {}, []
for r in rows:
    key = r["email"].strip().lower()
    if key in first and first[key]["signup_date"] != r["signup_date"]:
        differ.append(key)
    first.setdefault(key, r)
print(differ or "no duplicate whose later row differs")
sys.exit(0 if differ else 1)
