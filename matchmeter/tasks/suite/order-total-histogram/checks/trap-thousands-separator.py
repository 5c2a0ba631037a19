"""Trap: some total is written with a thousands separator ("1,234.50")."""
import csv
import sys

totals = [r["total"] for r in csv.DictReader(open("data/orders.csv", newline=""))]
if not any("," in t for t in totals):
    sys.exit("missing: some total is written with a thousands separator ('1,234.50')")
