"""The revenues sorted as text (2 decimals) come out in another order than sorted as numbers."""
import sqlite3
import sys
from pathlib import Path

if not Path("shop.db").is_file():
    sys.exit(print("no shop.db") or 1)
db = sqlite3.connect("file:shop.db?mode=ro", uri=True)
rev = [r[0] for r in db.execute("""SELECT SUM(i.qty * i.unit_price) FROM customers c JOIN orders o ON o.customer_id = c.id
                                   JOIN order_items i ON i.order_id = o.id WHERE o.status = 'paid' GROUP BY c.country""")]
as_text = sorted((f"{v:.2f}" for v in rev), reverse=True)
as_number = [f"{v:.2f}" for v in sorted(rev, reverse=True)]
sys.exit(0 if as_text != as_number else print(f"revenues {as_number} sort the same as text") or 1)
