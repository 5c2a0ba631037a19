#!/usr/bin/env bash
# Seeds a small warehouse: data/products.csv (current SKUs, case sizes, unit costs), opening stock on
# 2024-01-01, three monthly movement ledgers (quantities in eaches or cases, signed adjustments),
# SKU renames that take effect mid-quarter (older rows and the opening stock use the old SKU), and
# the physical count of 2024-03-31 with seeded shortfalls and a few surpluses.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import datetime as dt
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
words = ["bolt", "nut", "hinge", "bracket", "clamp", "washer", "spring", "gasket", "pulley", "valve", "lever", "rivet"]
skus = sorted({f"{rng.choice('ABCDEFGH')}{rng.randint(100, 999)}" for _ in range(rng.randint(14, 22))})
case = {s: rng.choice([6, 10, 12, 24, 50]) for s in skus}
cost = {s: round(rng.uniform(0.4, 40), 2) for s in skus}
renamed = {s: f"{s}-R" for s in rng.sample(skus, 3)}
effective = {s: dt.date(2024, rng.randint(1, 3), rng.randint(5, 25)) for s in renamed}
stock = {s: rng.randint(50, 600) for s in skus}
opening = dict(stock)
ledger = {1: [], 2: [], 3: []}
day = dt.date(2024, 1, 2)
while day <= dt.date(2024, 3, 29):
    for _ in range(rng.randint(0, 6)):
        s = rng.choice(skus)
        kind = rng.choices(["receipt", "sale", "customer_return", "write_off", "transfer_out", "transfer_in", "adjustment"],
                           [3, 10, 1, 1, 1, 1, 1])[0]
        uom = "CS" if kind in ("receipt", "transfer_in", "transfer_out") and rng.random() < 0.7 else "EA"
        qty = rng.randint(1, 8) if uom == "CS" else rng.randint(1, 40)
        units = qty * case[s] if uom == "CS" else qty
        sign = -1 if kind in ("sale", "write_off", "transfer_out") else 1
        if kind == "adjustment":
            sign = rng.choice([-1, 1])
            qty, units = sign * qty, qty
        if sign < 0 and stock[s] < units:
            continue
        stock[s] += sign * units
        shown = renamed[s] if s in renamed and day >= effective[s] else s
        ledger[day.month].append([day.isoformat(), shown, kind, qty, uom])
    day += dt.timedelta(days=1)
counted = {}
for s in skus:
    loss = rng.choice([0, 0, 0, -rng.randint(1, 15), -rng.randint(1, 4), rng.randint(1, 5) if rng.random() < 0.2 else 0])
    if s in skus[:2]:  # on every seed a surplus and a shortfall
        loss = rng.randint(1, 5) if s == skus[0] else -rng.randint(1, 15)
    counted[renamed.get(s, s)] = stock[s] + loss
Path("data/ledger").mkdir(parents=True, exist_ok=True)


def write(path, header, rows):
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


write("data/products.csv", ["sku", "description", "case_size", "unit_cost"],
      [[renamed.get(s, s), f"{rng.choice(words)} {rng.randint(2, 40)}mm", case[s], f"{cost[s]:.2f}"] for s in skus])
write("data/opening_stock_2024-01-01.csv", ["sku", "on_hand_units"], [[s, opening[s]] for s in skus])
for month, rows in ledger.items():
    write(f"data/ledger/2024-{month:02d}.csv", ["date", "sku", "movement", "qty", "uom"], rows)
write("data/sku_changes.csv", ["old_sku", "new_sku", "effective_date"],
      [[s, renamed[s], effective[s].isoformat()] for s in sorted(renamed)])
write("data/count_2024-03-31.csv", ["sku", "counted_units"], sorted(counted.items()))
PY
