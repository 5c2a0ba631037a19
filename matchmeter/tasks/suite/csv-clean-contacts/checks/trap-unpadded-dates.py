"""Trap probe: a signup date written without zero padding."""
import csv
import sys

with open("data/contacts.csv", newline="", encoding="utf-8") as fh:
    rows = list(csv.DictReader(fh))
short = [r["signup_date"] for r in rows if any(len(x) == 1 for x in r["signup_date"].strip().split("/"))]
print(short or "every date is zero-padded")
sys.exit(0 if short else 1)
