"""Every paying country also has a refunded or pending order with items (only paid orders count)."""
import sqlite3
import sys
from pathlib import Path

if not Path("shop.db").is_file():
    sys.exit(print("no shop.db") or 1)
db = sqlite3.connect("file:shop.db?mode=ro", uri=True)
paying = {r[0] for r in db.execute("SELECT DISTINCT c.country FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status = 'paid'")}
other = {r[0] for r in db.execute("""SELECT DISTINCT c.country FROM customers c JOIN orders o ON o.customer_id = c.id
                                     JOIN order_items i ON i.order_id = o.id WHERE o.status != 'paid'""")}
missing = sorted(paying - other)
sys.exit(0 if paying and not missing else print(f"paying countries without an unpaid order: {missing or 'no paying country'}") or 1)
