#!/usr/bin/env bash
# Seeds data/meter_readings.csv: hourly kWh readings stamped in the meter's local time (+01:00),
# shuffled, with missing hours, a multi-hour outage, blank readings and re-sent (duplicate) hours.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import datetime as dt
import math
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
start = dt.datetime(2024, 2, rng.randint(1, 5), tzinfo=dt.timezone(dt.timedelta(hours=1)))
days = rng.randint(10, 20)
outage_day = rng.randrange(days)
# Every day, on every seed, has a missing hour, a blank reading and a re-sent hour (three distinct hours).
missing, blank, resent = zip(*(rng.sample(range(24), 3) for _ in range(days)))
rows = []
for h in range(days * 24):
    t = start + dt.timedelta(hours=h)
    planted = t.hour in (blank[h // 24], resent[h // 24])
    if rng.random() < 0.07 or (h // 24 == outage_day and 9 <= t.hour < 9 + rng.randint(4, 10)) or missing[h // 24] == t.hour:
        if not planted:
            continue
    kwh = 0.4 + 0.5 * math.sin((t.hour - 6) / 24 * 2 * math.pi) ** 2 + rng.uniform(0, 0.6)
    value = "" if (rng.random() < 0.02 and resent[h // 24] != t.hour) or blank[h // 24] == t.hour else f"{kwh:.3f}"
    rows.append([t.isoformat(), value])
    if rng.random() < 0.03 or resent[h // 24] == t.hour:
        rows.append([t.isoformat(), value])
rng.shuffle(rows)
Path("data").mkdir(exist_ok=True)
with open("data/meter_readings.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["timestamp", "kwh"])
    w.writerows(rows)
PY
