"""Trap probe: shop.db holds an order with several order_items rows (its total is their sum, not one row)."""
import sqlite3
import sys
from pathlib import Path

if not Path("shop.db").is_file():
    sys.exit("no shop.db")
db = sqlite3.connect("file:shop.db?mode=ro", uri=True)
n = db.execute("SELECT COUNT(*) FROM (SELECT order_id FROM order_items GROUP BY order_id HAVING COUNT(*) > 1)").fetchone()[0]
sys.exit(0 if n else "no order with several items")
