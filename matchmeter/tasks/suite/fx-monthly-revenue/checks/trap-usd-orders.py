"""Trap: every month has orders paid in USD, which data/rates.csv has no rows for."""
import csv
import sys

if any(r["currency"] == "USD" for r in csv.DictReader(open("data/rates.csv", newline=""))):
    sys.exit("rates.csv has USD rows")
orders = list(csv.DictReader(open("data/orders.csv", newline="")))
missing = {o["order_date"][:7] for o in orders} - {o["order_date"][:7] for o in orders if o["currency"] == "USD"}
if missing:
    sys.exit(f"no USD order in {sorted(missing)}")
