"""Trap probe: the earlier migrations record themselves in schema_version with an applied_at, which is NOT NULL
(so a version-only insert fails), and shop.db holds their rows 1-3."""
import sqlite3
import sys
from pathlib import Path

if not Path("shop.db").is_file():
    sys.exit("no shop.db")
db = sqlite3.connect("file:shop.db?mode=ro", uri=True)
rows = db.execute("SELECT version, applied_at FROM schema_version ORDER BY version").fetchall()
if [v for v, _ in rows] != [1, 2, 3] or not all(a for _, a in rows):
    sys.exit(f"schema_version is not rows 1-3 with applied_at: {rows}")
notnull = {r[1]: r[3] for r in db.execute("PRAGMA table_info(schema_version)")}
if notnull.get("applied_at") != 1:
    sys.exit("schema_version.applied_at is not NOT NULL")
for n in (1, 2, 3):
    files = list(Path("migrations").glob(f"00{n}_*.sql"))
    if len(files) != 1 or "INSERT INTO schema_version VALUES" not in files[0].read_text():
        sys.exit(f"migrations/00{n}_*.sql does not record itself in schema_version")
