"""Migration 4 done well except for one named case (argv[1]); the cheap-trap-*.sh shots share it."""
import sqlite3
import subprocess
import sys

SKIP = sys.argv[1]
TOTAL = {
    # a correlated SUM is NULL for an order without items
    "no-items": "(SELECT SUM(qty * unit_price_cents) FROM order_items WHERE order_items.order_id = orders.id)",
    # one joined row per order instead of the sum over its rows
    "multi-item": "COALESCE((SELECT qty * unit_price_cents FROM order_items WHERE order_items.order_id = orders.id), 0)",
}.get(SKIP, "COALESCE((SELECT SUM(qty * unit_price_cents) FROM order_items WHERE order_items.order_id = orders.id), 0)")
column = "INTEGER" if SKIP == "no-items" else "INTEGER NOT NULL DEFAULT 0"
backfill = f"UPDATE orders SET total_cents = {TOTAL};\n"
version = ("INSERT INTO schema_version (version) VALUES (4);\n" if SKIP == "version-row"
           else "INSERT INTO schema_version VALUES (4, datetime('now'));\n")
sql = ("-- 004: order totals\nBEGIN;\n"
       f"ALTER TABLE orders ADD COLUMN total_cents {column};\n"
       + ("" if SKIP == "replayable" else backfill)
       + "CREATE INDEX idx_orders_customer ON orders(customer_id);\n" + version + "COMMIT;\n")
with open("migrations/004_order_totals.sql", "w") as out:
    out.write(sql)
with open("migrations/004_order_totals.sql") as script:
    subprocess.run(["sqlite3", "shop.db"], stdin=script, check=False)
if SKIP == "replayable":  # the backfill run by hand on the live database only
    db = sqlite3.connect("shop.db")
    db.execute(backfill)
    db.commit()
