"""sqlite-order-totals verifier: shop.db has migration 4 applied (column, backfill, index, version) with
its data intact, and migrations/004_*.sql replays to the same result on a pristine copy. The backfill
is scored over orders that have items (a DEFAULT 0 column gets the others for free) and pays nothing when
an order without items is not 0, an order with several items is not their sum, version 4 is not recorded
like 1-3 or the file does not replay; data_intact and the live version row pay only with the backfill
complete."""

import shutil
import sqlite3
import tempfile
from pathlib import Path

from verifylib import APP, grade, pristine, replay_sql

orig = pristine()
src = sqlite3.connect(orig / "shop.db")
expected = dict(src.execute(
    "SELECT o.id, COALESCE(SUM(i.qty * i.unit_price_cents), 0) FROM orders o "
    "LEFT JOIN order_items i ON i.order_id = o.id GROUP BY o.id"))
before = {t: src.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in ("customers", "order_items")}
orders_before = src.execute("SELECT id, customer_id, created_at, status FROM orders ORDER BY id").fetchall()
versions_before = [v for (v,) in src.execute("SELECT version FROM schema_version ORDER BY version")]
empty = {k for k, v in expected.items() if v == 0}
several = {k for (k,) in src.execute("SELECT order_id FROM order_items GROUP BY order_id HAVING COUNT(*) > 1")}


def connect(path):
    if not Path(path).is_file():
        raise FileNotFoundError(path)
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def schema_ok(db):
    cols = {row[1]: row[2] for row in db.execute("PRAGMA table_info(orders)")}
    idx = [row[2] for row in db.execute("PRAGMA index_info(idx_orders_customer)")]
    table = db.execute("SELECT tbl_name FROM sqlite_master WHERE type='index' AND name='idx_orders_customer'").fetchone()
    return "INT" in cols.get("total_cents", "").upper() and idx == ["customer_id"] and table == ("orders",)


def backfill_ok(db):
    got = dict(db.execute("SELECT id, total_cents FROM orders"))
    if any(got.get(k) != expected[k] for k in expected if k in empty or k in several):
        return 0.0  # the named cases: 0 for an order without items, the sum over all of an order's rows
    with_items = [k for k, v in expected.items() if v != 0]
    return sum(got.get(k) == expected[k] for k in with_items) / len(with_items)


def version_ok(db):
    rows = db.execute("SELECT version, applied_at FROM schema_version ORDER BY version").fetchall()
    return [v for v, _ in rows] == versions_before + [4] and all(a for _, a in rows)


def live():
    return connect(APP / "shop.db")


def backfill():
    """The live backfill pays only as migration 4: recorded like 1-3 and replayable from its file."""
    db = live()
    return backfill_ok(db) if version_ok(db) and replay() else 0.0


def intact():
    db = live()
    same = all(db.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() == rows for t, rows in before.items())
    orders = db.execute("SELECT id, customer_id, created_at, status FROM orders ORDER BY id").fetchall()
    return schema_ok(db) and backfill() == 1 and same and orders == orders_before


def replay():
    files = sorted((APP / "migrations").glob("004_*.sql"))
    if len(files) != 1:
        return 0
    work = Path(tempfile.mkdtemp(prefix="mm-migrate-"))
    shutil.copy(orig / "shop.db", work / "shop.db")
    replay_sql(work / "shop.db", files[0])  # sqlite3 -safe: the file's dot-commands cannot run programs
    db = connect(work / "shop.db")
    return schema_ok(db) and backfill_ok(db) == 1 and version_ok(db)


grade({"schema": 0.2, "backfill": 0.35, "version": 0.1, "replayable": 0.25, "data_intact": 0.1},
      {"schema": lambda: schema_ok(live()), "backfill": backfill,
       "version": lambda: backfill() == 1, "replayable": replay, "data_intact": intact})
