"""A correct country-revenue report that skips one named case (argv[1]): the cheap-trap-*.sh shots share it."""
import csv
import os
import sqlite3
import sys

SKIP = sys.argv[1]
rows = sqlite3.connect("shop.db").execute("""
    SELECT c.country, c.id, c.name, o.id, o.status, i.qty, i.unit_price
    FROM customers c JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id
    ORDER BY o.id, i.rowid""").fetchall()
orders, items, revenue, per_customer, names = {}, {}, {}, {}, {}
for country, cid, name, oid, status, qty, price in rows:
    paid = status == "paid" or SKIP == "paid-only"
    line = price if SKIP == "qty-times-price" else qty * price
    names[cid] = name
    if paid or SKIP == "top-paid-customer":  # top-paid-customer: every order counts towards the best customer
        per_customer.setdefault(country, {}).setdefault(cid, 0.0)
        per_customer[country][cid] += line
    if not paid:
        continue
    orders.setdefault(country, set()).add(oid)
    items[country] = items.get(country, 0) + 1  # distinct-orders: one per item row
    revenue[country] = revenue.get(country, 0.0) + line
out = []
for country, total in revenue.items():
    best = max(per_customer[country].items(), key=lambda kv: kv[1])[0]
    count = items[country] if SKIP == "distinct-orders" else len(orders[country])
    text = repr(total) if SKIP == "rounded" else f"{total:.2f}"
    out.append((country, count, text, names[best], total))
# numeric-sort: the revenue column is text, so it sorts as text
out.sort(key=(lambda r: r[2]) if SKIP == "numeric-sort" else (lambda r: r[4]), reverse=True)
os.makedirs("reports", exist_ok=True)
with open("reports/country_revenue.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["country", "orders", "revenue", "top_customer"])
    w.writerows(r[:4] for r in out)
