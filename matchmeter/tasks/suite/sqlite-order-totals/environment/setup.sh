#!/usr/bin/env bash
# Builds shop.db (customers, orders, order_items, schema_version at 3) with seeded rows (at least two orders
# without items and two with several), the three migrations that produced it in migrations/, and backups/shop-v3.db, a
# byte copy of the database that must survive.
set -euo pipefail
mkdir -p migrations backups
cat > migrations/001_init.sql <<'SQL'
-- 001: customers and orders
BEGIN;
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
                     created_at TEXT NOT NULL);
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL);
INSERT INTO schema_version VALUES (1, '2024-01-10 09:00:00');
COMMIT;
SQL
cat > migrations/002_items.sql <<'SQL'
-- 002: order lines
BEGIN;
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
                          sku TEXT NOT NULL, qty INTEGER NOT NULL, unit_price_cents INTEGER NOT NULL);
INSERT INTO schema_version VALUES (2, '2024-02-02 09:00:00');
COMMIT;
SQL
cat > migrations/003_status.sql <<'SQL'
-- 003: order status
BEGIN;
ALTER TABLE orders ADD COLUMN status TEXT NOT NULL DEFAULT 'open';
CREATE INDEX idx_items_order ON order_items(order_id);
INSERT INTO schema_version VALUES (3, '2024-03-15 09:00:00');
COMMIT;
SQL
for f in migrations/*.sql; do sqlite3 shop.db < "$f"; done
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sqlite3
import sys

rng = random.Random(int(sys.argv[1]))
db = sqlite3.connect("shop.db")
first = ["Ana", "Ben", "Chloe", "Dev", "Eli", "Fatima", "Goran", "Hana", "Ivan", "Jun", "Kai", "Lea"]
last = ["Meyer", "Okafor", "Silva", "Tanaka", "Novak", "Haddad", "Larsen", "Costa"]
customers = rng.randint(5, 9)
for cid in range(1, customers + 1):
    f, l = rng.choice(first), rng.choice(last)
    db.execute("INSERT INTO customers VALUES (?, ?, ?)", (cid, f"{f} {l}", f"{f.lower()}.{l.lower()}{cid}@example.com"))
item_id = 0
orders = rng.randint(15, 30)
# every seed: two orders without items (their total is 0, not NULL) and two with several items (a sum, not one row)
empty = set(rng.sample(range(1, orders + 1), 2))
several = set(rng.sample(sorted(set(range(1, orders + 1)) - empty), 2))
for oid in range(1, orders + 1):
    db.execute("INSERT INTO orders VALUES (?, ?, ?, ?)",
               (oid, rng.randint(1, customers), f"2024-{rng.randint(4, 9):02d}-{rng.randint(1, 28):02d} "
                f"{rng.randint(8, 20):02d}:{rng.randint(0, 59):02d}:00", rng.choice(["open", "paid", "paid", "shipped", "cancelled"])))
    count = 0 if oid in empty else rng.randint(2, 5) if oid in several else 0 if rng.random() < 0.2 else rng.randint(1, 5)
    for _ in range(count):
        item_id += 1
        db.execute("INSERT INTO order_items VALUES (?, ?, ?, ?, ?)",
                   (item_id, oid, f"SKU-{rng.randint(100, 999)}", rng.randint(1, 6), rng.randint(99, 25000)))
db.commit()
db.close()
PY
cp shop.db backups/shop-v3.db
