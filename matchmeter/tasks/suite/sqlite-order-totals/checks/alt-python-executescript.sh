# why: migration applied with Python's sqlite3.executescript, backfill via a grouped subquery join (UPDATE ... FROM)
cat > migrations/004_add_order_totals.sql <<'SQL'
-- 004: order totals
BEGIN;
CREATE INDEX idx_orders_customer ON orders(customer_id);
ALTER TABLE orders ADD COLUMN total_cents INTEGER NOT NULL DEFAULT 0;
UPDATE orders SET total_cents = t.total
  FROM (SELECT order_id, SUM(qty * unit_price_cents) AS total FROM order_items GROUP BY order_id) AS t
  WHERE t.order_id = orders.id;
INSERT INTO schema_version VALUES (4, '2024-06-01 09:00:00');
COMMIT;
SQL
python3 -c 'import sqlite3; db = sqlite3.connect("shop.db"); db.executescript(open("migrations/004_add_order_totals.sql").read()); db.close()'
