#!/usr/bin/env bash
# Seeds data/sales/<store>.csv: daily revenue per store over whole Monday-Sunday weeks; stores are
# closed on some days (no row); one promotion week jumps well above the rest. The final seven days
# have every store open so the trailing average is unambiguous. Each seed has its own promotion week.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import datetime as dt
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
stores = rng.sample(["downtown", "harbor", "airport", "mall", "uptown", "station", "riverside"], rng.randint(3, 5))
weeks = rng.randint(10, 16)
promo = rng.randint(2, weeks - 2)
# The promotion's Monday is 4 + 7*seed mod 40 weeks after 2024-01-01 (7 and 40 coprime): 40 seeds in a
# row get 40 different promotion weeks, so one seed's answer never carries over to another.
start = dt.date(2024, 1, 1) + dt.timedelta(weeks=4 + (int(sys.argv[1]) * 7) % 40 - promo)
level = {s: rng.uniform(800, 3000) for s in stores}
Path("data/sales").mkdir(parents=True, exist_ok=True)
for store in stores:
    with open(f"data/sales/{store}.csv", "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["date", "revenue"])
        for d in range(weeks * 7):
            day = start + dt.timedelta(days=d)
            if d < weeks * 7 - 7 and rng.random() < 0.06:
                continue  # closed
            boost = 1.8 if d // 7 == promo else 1.0
            weekend = 1.3 if day.weekday() >= 5 else 1.0
            w.writerow([day.isoformat(), f"{level[store] * boost * weekend * rng.uniform(0.85, 1.15):.2f}"])
PY
