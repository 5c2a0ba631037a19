"""Trap probe: a signup date whose day is above 12 and one whose day and month (both <= 12) differ."""
import csv
import sys

with open("data/contacts.csv", newline="", encoding="utf-8") as fh:
    rows = list(csv.DictReader(fh))
dates = [[int(x) for x in r["signup_date"].strip().split("/")] for r in rows]
big = [d for d in dates if d[0] > 12]
ambiguous = [d for d in dates if d[0] <= 12 and d[1] <= 12 and d[0] != d[1]]
print(big[:3], ambiguous[:3])
sys.exit(0 if big and ambiguous else 1)
