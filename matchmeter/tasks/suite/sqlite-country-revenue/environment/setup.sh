#!/usr/bin/env bash
# Seeds shop.db (sqlite): customers, orders (paid/refunded/pending) and order_items with seeded
# quantities and unit prices; one country whose customers never paid. Every seed plants each named case
# (checks/trap-*.py): in every paying country an unpaid order, a paid order of several items, a quantity
# above 1, and a customer whose unpaid orders would make them the best one; revenues whose text order is
# not their numeric order, and a float sum that only rounding brings back to 2 decimals.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sqlite3
import sys

rng = random.Random(int(sys.argv[1]))
FIRST = ["Ana", "Bo", "Cai", "Dana", "Eli", "Finn", "Gia", "Hal", "Ivo", "Jade", "Kai", "Lou", "Mo", "Nia"]
PRODUCTS = ["mug", "tee", "cap", "poster", "pin"]


def draw():
    countries = rng.sample(["DE", "FR", "IT", "ES", "NL", "PL", "SE", "PT"], rng.randint(4, 6))
    unpaid, small = countries[-1], countries[0]  # small: a paying country whose revenue has fewer digits
    cust = []
    for cid in range(1, rng.randint(14, 22)):
        cust.append((cid, f"{rng.choice(FIRST)} {chr(65 + cid % 26)}{rng.choice('aeiou')}{rng.choice('lmnrst')}",
                     countries[cid % len(countries)]))
    orders, items, oid = [], [], 500

    def order(cid, status, n_items, qty_hi, price_hi):
        nonlocal oid
        oid += 1
        orders.append((oid, cid, f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", status))
        for k in range(n_items):
            qty = rng.randint(2, max(2, qty_hi)) if k == 0 else rng.randint(1, qty_hi)
            items.append((oid, rng.choice(PRODUCTS), qty, rng.randint(250, price_hi) / 100))

    for cid, _, country in cust:
        qty_hi, price_hi = (2, 1999) if country == small else (6, 4999)
        for _ in range(rng.randint(0, 3 if country == small else 4)):
            status = "pending" if country == unpaid else rng.choices(["paid", "refunded", "pending"], [6, 1, 1])[0]
            order(cid, status, rng.randint(1, 4), qty_hi, price_hi)
    for country in countries[:-1]:
        members = [c for c in cust if c[2] == country]
        paid_rev = {c[0]: 0.0 for c in members}
        for o in orders:
            if o[3] == "paid" and o[1] in paid_rev:
                paid_rev[o[1]] += sum(q * p for oi, _, q, p in items if oi == o[0])
        best = max(paid_rev, key=paid_rev.get)
        if paid_rev[best] == 0 or len(members) < 2:
            return None
        qty_hi, price_hi = (2, 1999) if country == small else (6, 4999)
        order(best, "paid", rng.randint(2, 3), qty_hi, price_hi)  # several items in one paid order
        paid_rev[best] += sum(q * p for oi, _, q, p in items if oi == oid)
        # A runner-up whose refunded or pending orders would lift them above the best paying customer.
        def everything(cid):
            return sum(q * p for o in orders if o[1] == cid for oi, _, q, p in items if oi == o[0])

        rival = rng.choice([c for c in paid_rev if c != best])
        while everything(rival) <= everything(best) + 1:
            order(rival, rng.choice(["refunded", "pending"]), 4, 6, 4999)
    return countries, cust, orders, items


def planted(countries, cust, orders, items):
    """Text order of the revenue column differs from its numeric order; some float sum needs rounding."""
    country_of = {c[0]: c[2] for c in cust}
    status = {o[0]: (o[3], country_of[o[1]]) for o in orders}
    rev = {}
    for oi, _, q, p in items:
        if status[oi][0] == "paid":
            rev[status[oi][1]] = rev.get(status[oi][1], 0.0) + q * p
    text = [f"{v:.2f}" for v in rev.values()]
    return sorted(text, reverse=True) != [f"{v:.2f}" for v in sorted(rev.values(), reverse=True)] and any(
        len(repr(v).partition(".")[2]) > 2 for v in rev.values())


while True:
    drawn = draw()
    if drawn and planted(*drawn):
        break
countries, cust, orders, items = drawn
db = sqlite3.connect("shop.db")
db.executescript("""
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
                     created_at TEXT NOT NULL, status TEXT NOT NULL);
CREATE TABLE order_items (order_id INTEGER NOT NULL REFERENCES orders(id), product TEXT NOT NULL,
                          qty INTEGER NOT NULL, unit_price REAL NOT NULL);
""")
db.executemany("INSERT INTO customers VALUES (?,?,?)", cust)
db.executemany("INSERT INTO orders VALUES (?,?,?,?)", orders)
db.executemany("INSERT INTO order_items VALUES (?,?,?,?)", sorted(items, key=lambda i: i[0]))
db.commit()
db.close()
PY
