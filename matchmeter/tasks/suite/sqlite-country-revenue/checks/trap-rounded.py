"""Some country's paid revenue, summed as floats item by item, is not already a 2-decimal number."""
import sqlite3
import sys
from pathlib import Path

if not Path("shop.db").is_file():
    sys.exit(print("no shop.db") or 1)
db = sqlite3.connect("file:shop.db?mode=ro", uri=True)
rev = {}
for country, line in db.execute("""SELECT c.country, i.qty * i.unit_price FROM customers c JOIN orders o ON o.customer_id = c.id
                                   JOIN order_items i ON i.order_id = o.id WHERE o.status = 'paid' ORDER BY o.id, i.rowid"""):
    rev[country] = rev.get(country, 0.0) + line
noisy = [c for c, v in rev.items() if len(repr(v).partition(".")[2]) > 2]
sys.exit(0 if noisy else print("every country's float sum already prints with 2 decimals or fewer") or 1)
