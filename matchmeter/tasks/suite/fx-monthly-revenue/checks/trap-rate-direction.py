"""Trap: every month has orders in a currency whose usd_per_unit is far from 1 (dividing by it shows)."""
import csv
import sys

rate = {r["currency"]: float(r["usd_per_unit"]) for r in csv.DictReader(open("data/rates.csv", newline=""))}
orders = list(csv.DictReader(open("data/orders.csv", newline="")))
missing = {o["order_date"][:7] for o in orders} - {
    o["order_date"][:7] for o in orders if o["currency"] in rate and abs(rate[o["currency"]] - 1) > 0.05}
if missing:
    sys.exit(f"no order in a currency whose rate is far from 1 in {sorted(missing)}")
