#!/usr/bin/env bash
# Seeds shop.db (sqlite): customers, orders (paid/refunded/pending) and order_items with seeded
# quantities and unit prices; one country whose customers never paid.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sqlite3
import sys

rng = random.Random(int(sys.argv[1]))
db = sqlite3.connect("shop.db")
db.executescript("""
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
                     created_at TEXT NOT NULL, status TEXT NOT NULL);
CREATE TABLE order_items (order_id INTEGER NOT NULL REFERENCES orders(id), product TEXT NOT NULL,
                          qty INTEGER NOT NULL, unit_price REAL NOT NULL);
""")
countries = rng.sample(["DE", "FR", "IT", "ES", "NL", "PL", "SE", "PT"], rng.randint(4, 6))
unpaid = countries[-1]
first = ["Ana", "Bo", "Cai", "Dana", "Eli", "Finn", "Gia", "Hal", "Ivo", "Jade", "Kai", "Lou", "Mo", "Nia"]
cust = []
for cid in range(1, rng.randint(14, 22)):
    country = countries[cid % len(countries)]
    cust.append((cid, f"{rng.choice(first)} {chr(65 + cid % 26)}{rng.choice('aeiou')}{rng.choice('lmnrst')}", country))
db.executemany("INSERT INTO customers VALUES (?,?,?)", cust)
oid = 500
for cid, _, country in cust:
    for _ in range(rng.randint(0, 4)):
        oid += 1
        status = "pending" if country == unpaid else rng.choices(["paid", "refunded", "pending"], [6, 1, 1])[0]
        db.execute("INSERT INTO orders VALUES (?,?,?,?)",
                   (oid, cid, f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", status))
        for _ in range(rng.randint(1, 4)):
            db.execute("INSERT INTO order_items VALUES (?,?,?,?)",
                       (oid, rng.choice(["mug", "tee", "cap", "poster", "pin"]), rng.randint(1, 6), rng.randint(250, 4999) / 100))
db.commit()
db.close()
PY
