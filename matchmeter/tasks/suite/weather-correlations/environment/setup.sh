#!/usr/bin/env bash
# Seeds data/station.csv: hourly weather with seeded cross-correlations between temperature,
# humidity, pressure and wind; a few cells are blank (sensor dropouts), extra columns are noise.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
a, b, c = rng.uniform(-0.9, 0.9), rng.uniform(-0.6, 0.6), rng.uniform(-0.7, 0.7)
rows = []
for h in range(rng.randint(300, 600)):
    z1, z2, z3, z4 = (rng.gauss(0, 1) for _ in range(4))
    temp = 12 + 6 * z1
    hum = 65 + 15 * (a * z1 + (1 - a * a) ** 0.5 * z2)
    pres = 1013 + 8 * (b * z2 + (1 - b * b) ** 0.5 * z3)
    wind = abs(4 + 3 * (c * z3 + (1 - c * c) ** 0.5 * z4))
    cells = [f"{temp:.1f}", f"{hum:.1f}", f"{pres:.1f}", f"{wind:.1f}"]
    for i in range(4):
        if rng.random() < 0.03 or h // 2 == i:  # on every seed each variable drops out (hours 0-7, two each)
            cells[i] = ""
    rows.append([f"2024-09-{1 + h // 24:02d}T{h % 24:02d}:00Z", *cells, rng.choice(["N", "NE", "E", "SE", "S", "SW", "W", "NW"]),
                 f"{max(0.0, rng.gauss(0.2, 0.5)):.1f}"])
Path("data").mkdir(exist_ok=True)
with open("data/station.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["time", "temperature_c", "humidity_pct", "pressure_hpa", "wind_ms", "wind_dir", "rain_mm"])
    w.writerows(rows)
PY
