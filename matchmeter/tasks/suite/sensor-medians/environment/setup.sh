#!/usr/bin/env bash
# Seeds data/readings.csv: seeded sensors and readings with blanks, "NaN", "ERR" and "n/a" mixed in.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
sensors = [f"{rng.choice(['temp', 'hum', 'pres'])}-{rng.randint(10, 99)}{c}" for c in "abcdefgh"[: rng.randint(4, 7)]]
base = {s: rng.uniform(-5, 90) for s in sensors}
rows = []
for minute in range(rng.randint(60, 110)):
    for s in sensors:
        if rng.random() < 0.15 and minute >= 4:
            continue
        bad = rng.random()
        if minute < 4:  # on every seed each sensor has a blank, a NaN, an ERR and an n/a
            bad = (0.0, 0.05, 0.08, 0.095)[minute]
        value = "" if bad < 0.04 else "NaN" if bad < 0.07 else "ERR" if bad < 0.09 else "n/a" if bad < 0.1 \
            else f"{base[s] + rng.gauss(0, 3):.3f}"
        rows.append([s, f"2024-05-{1 + minute // 1440:02d}T{(minute // 60) % 24:02d}:{minute % 60:02d}:00Z", value])
rng.shuffle(rows)
Path("data").mkdir(exist_ok=True)
with open("data/readings.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["sensor_id", "timestamp", "value"])
    w.writerows(rows)
PY
