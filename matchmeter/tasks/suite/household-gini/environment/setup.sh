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
n = rng.randint(200, 400)
# 20-30 non-answers on every seed, both spellings: enough that counting them as 0 moves the top 10%.
missing = dict(zip(rng.sample(range(n), rng.randint(20, 30)), ["", "NA"] + [rng.choice(["", "NA"]) for _ in range(30)]))
for i in range(n):
    income = missing.get(i, f"{rng.lognormvariate(10.6, sigma):.0f}")
    rows.append([f"H{10000 + i * 7}", rng.choice(regions), rng.randint(1, 6), income])
Path("data").mkdir(exist_ok=True)
with open("data/households.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["household_id", "region", "members", "annual_income"])
    w.writerows(rows)
PY
