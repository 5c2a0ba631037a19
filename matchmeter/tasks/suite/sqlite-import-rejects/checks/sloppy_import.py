"""A correct inventory import that skips one named case (argv[1]): the cheap-trap-*.sh shots share it."""
import csv
import re
import sqlite3
import sys

SKIP = sys.argv[1]
schema = open("schema.sql").read()
if SKIP == "numbers-typed":  # every column declared TEXT: the numbers go in as the CSV's text
    schema = re.sub(r"\b(INTEGER|REAL)\b(?! PRIMARY)", "TEXT", schema)
con = sqlite3.connect("inventory.db")
con.executescript(schema)


def empty(value):
    return value if SKIP == "empty-null" else (value or None)


sup = list(csv.DictReader(open("data/suppliers.csv", newline="")))
con.executemany("INSERT INTO suppliers VALUES (?, ?, ?)", [(int(s["id"]), s["name"], empty(s["country"])) for s in sup])
ids = {int(s["id"]) for s in sup}
reader = csv.DictReader(open("data/parts.csv", newline=""))
rows = list(reader)
last = {p["sku"]: n for n, p in enumerate(rows)}
seen, rejects = set(), []
for n, p in enumerate(rows):
    why = []
    if SKIP != "unknown-supplier" and not (p["supplier_id"].isdigit() and int(p["supplier_id"]) in ids):
        why.append("unknown supplier")
    price = p["price"].lstrip("-")
    if SKIP != "price-not-number" and not re.fullmatch(r"\d+(\.\d+)?", price):
        why.append("price not a number")
    elif SKIP != "price-positive" and not (p["price"] == price and float(price) > 0):
        why.append("price not positive")
    qty = p["qty"].lstrip("-")
    if not re.fullmatch(r"\d+" if SKIP != "qty-whole" else r"\d+(\.\d+)?", qty):
        why.append("qty not a whole number")
    elif SKIP != "qty-negative" and p["qty"] != qty:
        why.append("qty negative")
    if SKIP == "duplicate-sku" and last[p["sku"]] != n:  # keeps the last one instead of the first
        why.append("duplicate sku")
    elif SKIP != "duplicate-sku" and p["sku"] in seen:
        why.append("duplicate sku")
    if why:
        rejects.append({**p, "reason": "; ".join(why)})
        continue
    seen.add(p["sku"])
    values = (p["sku"], p["supplier_id"], p["description"], p["price"], p["qty"], empty(p["notes"]))
    if SKIP != "numbers-typed":
        values = (p["sku"], int(p["supplier_id"]), p["description"], float(p["price"]), int(float(p["qty"])), empty(p["notes"]))
    # what the CHECK constraints refuse is dropped without a word (INSERT OR IGNORE)
    con.execute("INSERT OR IGNORE INTO parts VALUES (?, ?, ?, ?, ?, ?)", values)
limit = "<=" if SKIP == "low-stock-boundary" else "<"
con.execute(f"CREATE VIEW low_stock AS SELECT p.sku, s.name AS supplier, p.qty FROM parts p "
            f"JOIN suppliers s ON s.id = p.supplier_id WHERE p.qty {limit} 10")
con.commit()
with open("rejects.csv", "w", newline="") as f:
    if SKIP == "quoted-fields":  # fields joined with commas, never quoted
        f.write(",".join(reader.fieldnames + ["reason"]) + "\n")
        f.writelines(",".join(r.values()) + "\n" for r in rejects)
    else:
        w = csv.DictWriter(f, fieldnames=reader.fieldnames + ["reason"])
        w.writeheader()
        w.writerows(rejects)
