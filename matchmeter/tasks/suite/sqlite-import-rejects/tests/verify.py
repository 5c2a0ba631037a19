"""sqlite-import-rejects verifier: inventory.db holds exactly the valid rows with proper types, NULLs
and constraints; rejects.csv holds exactly the invalid rows; the low_stock view answers right."""

import csv
import io
import re
import sqlite3

from verifylib import APP, all_or_nothing, grade, pristine, read

orig = pristine()
with open(orig / "data" / "suppliers.csv", newline="") as fh:
    suppliers = list(csv.DictReader(fh))
with open(orig / "data" / "parts.csv", newline="") as fh:
    parts = list(csv.DictReader(fh))
sup_ids = {int(s["id"]): s["name"] for s in suppliers}
good, bad, seen = [], [], set()
for p in parts:
    try:
        price_ok = float(p["price"]) > 0 and re.fullmatch(r"-?\d+(\.\d+)?", p["price"])
    except ValueError:
        price_ok = False
    ok = (p["supplier_id"].isdigit() and int(p["supplier_id"]) in sup_ids and price_ok
          and re.fullmatch(r"\d+", p["qty"]) and p["sku"] not in seen)
    if ok:
        seen.add(p["sku"])
        good.append((p["sku"], int(p["supplier_id"]), p["description"], float(p["price"]), int(p["qty"]), p["notes"] or None))
    else:
        bad.append(tuple(p.values()))


def db():
    path = APP / "inventory.db"
    assert path.is_file()
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def suppliers_loaded():
    rows = db().execute("SELECT id, name, country, typeof(id) FROM suppliers ORDER BY id").fetchall()
    want = sorted((int(s["id"]), s["name"], s["country"] or None, "integer") for s in suppliers)
    return rows == want


def parts_loaded():
    rows = set(db().execute("SELECT sku, supplier_id, description, price, qty, notes FROM parts").fetchall())
    return len(rows & set(good)) / max(len(good), len(rows))


def typed():
    con = db()
    types = con.execute("SELECT DISTINCT typeof(supplier_id), typeof(price), typeof(qty) FROM parts").fetchall()
    blanks = con.execute("SELECT COUNT(*) FROM parts WHERE notes = ''").fetchone()[0]
    ddl = " ".join(r[0] for r in con.execute("SELECT sql FROM sqlite_master WHERE name = 'parts'"))
    return (types == [("integer", "real", "integer")] and blanks == 0 and "CHECK" in ddl.upper()
            and "REFERENCES" in ddl.upper() and parts_loaded() > 0)


def rejects():
    rows = list(csv.reader(io.StringIO(read("rejects.csv"))))
    header, body = rows[0], [r for r in rows[1:] if r]
    assert header == list(parts[0].keys()) + ["reason"]
    got = sorted(tuple(r[:6]) for r in body)
    return got == sorted(bad) and all(r[6].strip() for r in body)


def low_stock():
    got = sorted(db().execute("SELECT sku, supplier, qty FROM low_stock").fetchall())
    want = sorted((g[0], sup_ids[g[1]], g[4]) for g in good if g[4] < 10)
    return got == want




grade({"suppliers_loaded": 0.1, "valid_parts_loaded": 0.3, "types_and_nulls": 0.15, "rejects_csv": 0.3, "low_stock_view": 0.15},
      all_or_nothing({"suppliers_loaded": suppliers_loaded, "valid_parts_loaded": parts_loaded, "types_and_nulls": typed,
              "rejects_csv": rejects, "low_stock_view": low_stock}))
