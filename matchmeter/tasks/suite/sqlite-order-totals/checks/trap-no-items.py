"""Trap probe: shop.db holds an order with no rows in order_items (its total must be 0)."""
import sqlite3
import sys
from pathlib import Path

if not Path("shop.db").is_file():
    sys.exit("no shop.db")
db = sqlite3.connect("file:shop.db?mode=ro", uri=True)
n = db.execute("SELECT COUNT(*) FROM orders WHERE id NOT IN (SELECT order_id FROM order_items)").fetchone()[0]
sys.exit(0 if n else "no order without items")
