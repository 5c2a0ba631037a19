"""Trap: some orders have a blank total."""
import csv
import sys

totals = [r["total"] for r in csv.DictReader(open("data/orders.csv", newline=""))]
if not any(not t.strip() for t in totals):
    sys.exit("missing: some orders have a blank total")
