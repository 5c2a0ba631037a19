"""Trap: a customer without coordinates typed the postcode with other spacing than data/postcodes.csv,
so an exact lookup (even after trimming and upper-casing) misses it."""
import csv
import sys

book = {r["postcode"] for r in csv.DictReader(open("data/postcodes.csv", newline=""))}
typed = [r["postcode"] for r in csv.DictReader(open("data/customers.csv", newline="")) if not r["lat"].strip()]
if not any(t.strip().upper() not in book and "".join(t.split()).upper() in {"".join(b.split()) for b in book}
           for t in typed):
    sys.exit("no postcode-only customer whose postcode differs from the table in spacing")
