#!/usr/bin/env bash
# Seeds data/sales.csv: seeded regions, products, units and prices; the top region wins by a clear margin,
# and another region (all cheap widgets) has the most rows and units.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
regions = rng.sample(["North", "South", "East", "West", "Central", "Coastal", "Highlands", "Metro"], rng.randint(4, 6))
weights = {r: rng.uniform(0.5, 1.5) for r in regions}
winner, bulk = rng.sample(regions, 2)
weights[winner] = 2.2  # a clear winner, so rounding never changes the answer
weights[bulk] = 3.4  # on every seed another region sells the most rows and units, all of the cheapest product
products = {p: round(rng.uniform(2, 120), 2) for p in ["widget", "gadget", "sprocket", "gizmo", "doohickey"]}
products["widget"] = round(rng.uniform(2, 8), 2)
Path("data").mkdir(exist_ok=True)
with open("data/sales.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["order_id", "date", "region", "product", "units", "unit_price"])
    for i in range(rng.randint(150, 300)):
        region = rng.choices(regions, [weights[r] for r in regions])[0]
        product = rng.choice(list(products)) if region != bulk else "widget"
        w.writerow([10000 + i, f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", region, product,
                    rng.randint(1, 20) if region != bulk else rng.randint(8, 20), products[product]])
PY
