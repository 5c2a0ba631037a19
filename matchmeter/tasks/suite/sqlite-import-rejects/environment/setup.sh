#!/usr/bin/env bash
# Seeds schema.sql (the target DDL) and data/suppliers.csv + data/parts.csv with planted bad part
# rows: unknown supplier, non-numeric / zero / negative price, fractional or missing qty, a repeated
# sku (the first one is good), blank notes that must load as NULL, quoted descriptions with commas.
# Every seed plants each named case (checks/trap-*.py): one row per fault kind below (a zero or a
# negative price, or both), a supplier without a country, a good part with blank notes and one with exactly
# 10 in stock, and a rejected row whose description holds a comma.
set -euo pipefail
cat > schema.sql <<'SQL'
CREATE TABLE suppliers (
    id      INTEGER PRIMARY KEY,
    name    TEXT NOT NULL UNIQUE,
    country TEXT
);
CREATE TABLE parts (
    sku         TEXT PRIMARY KEY,
    supplier_id INTEGER NOT NULL REFERENCES suppliers(id),
    description TEXT NOT NULL,
    price       REAL NOT NULL CHECK (price > 0),
    qty         INTEGER NOT NULL CHECK (qty >= 0),
    notes       TEXT
);
SQL
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
names = ["Acme Fasteners", "Borealis Tools, Inc.", "Cobalt Supply", "Delta Metals", "Everest Parts", "Fjord Hydraulics"]
sup_ids = rng.sample(range(10, 60), len(names))
suppliers = [(i, n, rng.choice(["DE", "US", "NO", "", "JP"])) for i, n in zip(sup_ids, names)][: rng.randint(4, 6)]
blank = rng.randrange(len(suppliers))
suppliers[blank] = suppliers[blank][:2] + ("",)
known = [s[0] for s in suppliers]
unknown = rng.choice([i for i in range(60, 99)])
things = ["hex bolt M8", "washer, zinc", "hinge 90mm", "gasket set", "pump seal", "drill bit 6mm", "cable tie, 200mm",
          "spring pin", "bearing 6204", "O-ring 12x2", "lock nut", "valve, brass"]
pool = rng.sample(range(1000, 9999), 24)
good = []
for n, sku_num in enumerate(pool[: rng.randint(12, 16)]):
    good.append([f"PT-{sku_num}", str(rng.choice(known)), rng.choice(things), f"{rng.randint(5, 9999) / 100:.2f}",
                 str(rng.choice([0, 2, 5, 8, 12, 40, 150, rng.randint(0, 300)])), rng.choice(["", "", "fragile", "backorder ok", "ships in 2 weeks"])])
good[rng.randrange(len(good))][4] = "10"  # the boundary: not fewer than 10
good[rng.randrange(len(good))][5] = ""
faults = ["supplier", "price_text", rng.choice(["price_zero", "price_negative"]), "qty_fraction", "qty_negative", "duplicate"]
faults += rng.sample(["price_zero", "price_negative", "qty_missing"], rng.randint(0, 2))
rng.shuffle(faults)
bad = []
commas = [t for t in things if "," in t]
for n, fault in enumerate(dict.fromkeys(faults)):
    row = [f"PT-{pool.pop()}", str(rng.choice(known)), rng.choice(commas if n == 0 else things),
           f"{rng.randint(5, 999) / 100:.2f}", str(rng.randint(0, 90)), ""]
    if fault == "supplier":
        row[1] = str(unknown)
    elif fault == "price_text":
        row[3] = rng.choice(["N/A", "tbd", "12,50"])
    elif fault == "price_zero":
        row[3] = "0.00"
    elif fault == "price_negative":
        row[3] = f"-{rng.randint(1, 90)}.00"
    elif fault == "qty_fraction":
        row[4] = f"{rng.randint(1, 20)}.5"
    elif fault == "qty_missing":
        row[4] = ""
    elif fault == "qty_negative":
        row[4] = f"-{rng.randint(1, 40)}"
    else:
        src = rng.choice(good)
        row = [src[0]] + row[1:]
    bad.append(row)
rows = good[:]
for row in bad:
    lo = 1 + next((i for i, g in enumerate(rows) if g[0] == row[0]), -1)
    rows.insert(rng.randint(lo, len(rows)), row)
Path("data").mkdir(exist_ok=True)
with open("data/suppliers.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["id", "name", "country"])
    w.writerows(suppliers)
with open("data/parts.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["sku", "supplier_id", "description", "price", "qty", "notes"])
    w.writerows(rows)
PY
