#!/usr/bin/env bash
# Seeds data/households.csv: lognormal incomes over a few regions, with blanks and "NA" for
# households that did not answer.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
regions = rng.sample(["Aldmoor", "Brightwater", "Cresthill", "Dunmore", "Eastfield", "Farrow"], 4)
sigma = rng.uniform(0.5, 0.9)
rows = []
for i in range(rng.randint(200, 400)):
    income = f"{rng.lognormvariate(10.6, sigma):.0f}"
    if rng.random() < 0.06:
        income = rng.choice(["", "NA", "NA", ""])
    rows.append([f"H{10000 + i * 7}", rng.choice(regions), rng.randint(1, 6), income])
Path("data").mkdir(exist_ok=True)
with open("data/households.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["household_id", "region", "members", "annual_income"])
    w.writerows(rows)
PY
