"""Trap: some address repeats in other letter case."""
import csv
import sys

emails = [r["email"] for r in csv.DictReader(open("data/signups.csv", newline=""))]
if not (len({e.strip() for e in emails}) > len({e.strip().lower() for e in emails})):
    sys.exit("missing: some address repeats in other letter case")
