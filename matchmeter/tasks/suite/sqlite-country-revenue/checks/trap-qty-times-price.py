"""Every paying country has a paid item bought more than once (revenue is quantity x unit price)."""
import sqlite3
import sys
from pathlib import Path

if not Path("shop.db").is_file():
    sys.exit(print("no shop.db") or 1)
db = sqlite3.connect("file:shop.db?mode=ro", uri=True)
rows = dict(db.execute("""SELECT c.country, MAX(i.qty) FROM customers c JOIN orders o ON o.customer_id = c.id
                          JOIN order_items i ON i.order_id = o.id WHERE o.status = 'paid' GROUP BY c.country"""))
missing = sorted(c for c, q in rows.items() if q < 2)
sys.exit(0 if rows and not missing else print(f"paying countries without a paid quantity above 1: {missing or 'none paying'}") or 1)
