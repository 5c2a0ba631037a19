"""In every paying country the customer with the most revenue over all orders is not the best paying one."""
import sqlite3
import sys
from pathlib import Path

if not Path("shop.db").is_file():
    sys.exit(print("no shop.db") or 1)
db = sqlite3.connect("file:shop.db?mode=ro", uri=True)
paid, every = {}, {}
for country, cid, status, rev in db.execute("""SELECT c.country, c.id, o.status, i.qty * i.unit_price FROM customers c
                                               JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id"""):
    every.setdefault(country, {}).setdefault(cid, 0.0)
    every[country][cid] += rev
    if status == "paid":
        paid.setdefault(country, {}).setdefault(cid, 0.0)
        paid[country][cid] += rev
missing = []
for country, revs in paid.items():
    best = max(revs.values())
    tops = {c for c, r in revs.items() if r > best - 0.005}
    if max(every[country], key=every[country].get) in tops:
        missing.append(country)
sys.exit(0 if paid and not missing else print(f"countries where all orders pick the best paying customer: {missing or 'none paying'}") or 1)
