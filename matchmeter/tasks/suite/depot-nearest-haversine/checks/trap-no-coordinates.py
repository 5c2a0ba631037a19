"""Trap: some customers have blank coordinates (only a postcode)."""
import csv
import sys

if not any(not r["lat"].strip() for r in csv.DictReader(open("data/customers.csv", newline=""))):
    sys.exit("every customer has coordinates")
