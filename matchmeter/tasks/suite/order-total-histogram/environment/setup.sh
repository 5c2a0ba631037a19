#!/usr/bin/env bash
# Seeds data/orders.csv: order totals spread over the bands of the instruction (never exactly on an
# inner band edge, where open/closed bounds are ambiguous; exactly 25 and 1000 once each, which "under 25"
# and "1000 or more" decide); totals of 1000+ are written "1,234.50" and quoted.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
edges = [0, 25, 50, 100, 250, 500, 1000]
names = ["ana", "bo", "chen", "dana", "eli", "fay", "gus", "hana", "ivo", "jun", "kai", "lea", "max", "noor"]
rows = []
for i in range(rng.randint(180, 320)):
    band = rng.choices(range(7), weights=[3, 5, 8, 7, 4, 2, 1])[0]
    low = edges[band]
    high = edges[band + 1] if band < 6 else 4000
    total = round(rng.uniform(low + 0.01, high - 0.01), 2)
    if total in edges:
        total += 0.01
    text = f"{total:,.2f}" if total >= 1000 else f"{total:.2f}"
    if rng.random() < 0.04:
        text = ""  # draft order, never completed
    if i < 4:  # on every seed: a draft, totals exactly on the edges 25 and 1000, and one over 1000
        text = ["", "25.00", "1,000.00", f"{rng.uniform(1000.01, 3999.99):,.2f}"][i]
    rows.append([f"SO-{5000 + i}", f"2024-{rng.randint(1, 9):02d}-{rng.randint(1, 28):02d}", rng.choice(names), text])
Path("data").mkdir(exist_ok=True)
with open("data/orders.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["order_id", "placed_on", "customer", "total"])
    w.writerows(rows)
PY
