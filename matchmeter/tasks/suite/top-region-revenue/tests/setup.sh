#!/usr/bin/env bash
# Seeds data/sales.csv: seeded regions, products, units and prices; the top region wins by a clear margin.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
regions = rng.sample(["North", "South", "East", "West", "Central", "Coastal", "Highlands", "Metro"], rng.randint(4, 6))
weights = {r: rng.uniform(0.5, 1.5) for r in regions}
weights[rng.choice(regions)] = 2.2  # a clear winner, so rounding never changes the answer
products = {p: round(rng.uniform(2, 120), 2) for p in ["widget", "gadget", "sprocket", "gizmo", "doohickey"]}
Path("data").mkdir(exist_ok=True)
with open("data/sales.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["order_id", "date", "region", "product", "units", "unit_price"])
    for i in range(rng.randint(150, 300)):
        region = rng.choices(regions, [weights[r] for r in regions])[0]
        product = rng.choice(list(products))
        w.writerow([10000 + i, f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", region, product,
                    rng.randint(1, 20), products[product]])
PY
