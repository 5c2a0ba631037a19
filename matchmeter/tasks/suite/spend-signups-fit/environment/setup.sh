#!/usr/bin/env bash
# Seeds data/campaign_weeks.csv: weekly ad spend and signups on a noisy seeded line; the latest weeks
# have no signups figure yet (blank), and one week is marked "pending".
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import datetime as dt
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
slope, intercept = rng.uniform(0.02, 0.09), rng.uniform(40, 400)
start = dt.date(2023, 1, 2) + dt.timedelta(weeks=rng.randint(0, 20))
weeks = rng.randint(40, 70)
rows = []
pending = rng.randrange(weeks - 4)  # on every seed at least one week is "pending", besides the blank latest ones
for k in range(weeks):
    spend = round(rng.uniform(1500, 25000), 2)
    signups = str(max(0, round(intercept + slope * spend + rng.gauss(0, 60))))
    if k >= weeks - rng.randint(1, 3):
        signups = ""
    elif rng.random() < 0.03 or k == pending:
        signups = "pending"
    rows.append([(start + dt.timedelta(weeks=k)).isoformat(), f"{spend:.2f}", signups])
Path("data").mkdir(exist_ok=True)
with open("data/campaign_weeks.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["week_start", "ad_spend_eur", "signups"])
    w.writerows(rows)
PY
