"""Trap: some address repeats with stray spaces around it."""
import csv
import sys

emails = [r["email"] for r in csv.DictReader(open("data/signups.csv", newline=""))]
if not (len({e.lower() for e in emails}) > len({e.strip().lower() for e in emails})):
    sys.exit("missing: some address repeats with stray spaces around it")
