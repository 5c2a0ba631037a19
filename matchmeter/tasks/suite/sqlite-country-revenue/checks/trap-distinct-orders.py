"""Every paying country has a paid order of several items (orders, not item rows, are counted)."""
import sqlite3
import sys
from pathlib import Path

if not Path("shop.db").is_file():
    sys.exit(print("no shop.db") or 1)
db = sqlite3.connect("file:shop.db?mode=ro", uri=True)
rows = dict(db.execute("""SELECT country, MAX(n) FROM (SELECT c.country, COUNT(*) AS n FROM customers c
                          JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id
                          WHERE o.status = 'paid' GROUP BY o.id) GROUP BY country"""))
missing = sorted(c for c, n in rows.items() if n < 2)
sys.exit(0 if rows and not missing else print(f"paying countries without a paid order of 2+ items: {missing or 'none paying'}") or 1)
