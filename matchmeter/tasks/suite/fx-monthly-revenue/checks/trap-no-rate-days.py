"""Trap: every month has a foreign-currency order on a day without a rate for its currency."""
import csv
import sys

have = {(r["date"], r["currency"]) for r in csv.DictReader(open("data/rates.csv", newline=""))}
months = {o["order_date"][:7] for o in csv.DictReader(open("data/orders.csv", newline=""))}
hit = {o["order_date"][:7] for o in csv.DictReader(open("data/orders.csv", newline=""))
       if o["currency"] != "USD" and (o["order_date"], o["currency"]) not in have}
if months - hit:
    sys.exit(f"no foreign order on a day without a rate in {sorted(months - hit)}")
