#!/usr/bin/env bash
# Seeds data/build_times.csv: a compact bulk of CI build durations plus far-off spikes (hung runners)
# and near-zero runs (cache hits); the gap is wide enough that every common quartile method puts the
# 1.5 x IQR fences in the same empty stretch.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
centre = rng.uniform(300, 900)
half = centre * 0.15
rows = []
n = rng.randint(150, 300)
for i in range(n):
    value = rng.uniform(centre - half, centre + half)
    roll = rng.random()
    if i < 2:  # on every seed at least one hung runner and one cache hit
        roll = (0.0, 0.05)[i]
    if roll < 0.04:
        value = rng.uniform(centre * 2.2, centre * 8)
    elif roll < 0.06:
        value = rng.uniform(2, centre * 0.2)
    rows.append([f"build-{7000 + i}", rng.choice(["main", "main", "release", "feature"]), f"{value:.1f}"])
Path("data").mkdir(exist_ok=True)
with open("data/build_times.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["build_id", "branch", "duration_s"])
    w.writerows(rows)
PY
