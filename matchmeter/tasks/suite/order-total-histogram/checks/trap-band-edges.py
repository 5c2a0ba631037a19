"""Trap: some total is exactly 25."""
import csv
import sys

totals = [r["total"] for r in csv.DictReader(open("data/orders.csv", newline=""))]
if "25.00" not in totals:
    sys.exit("missing: some total is exactly 25")
