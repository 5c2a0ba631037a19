"""Trap: some total is exactly 1000."""
import csv
import sys

totals = [r["total"] for r in csv.DictReader(open("data/orders.csv", newline=""))]
if "1,000.00" not in totals and "1000.00" not in totals:
    sys.exit("missing: some total is exactly 1000")
