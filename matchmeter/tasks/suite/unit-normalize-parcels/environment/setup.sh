#!/usr/bin/env bash
# Seeds data/parcels.csv: weights in kg/g/lb/oz and lengths in cm/mm/m/in, written with varying
# case and spacing ("800g", "2.5 KG", "12 in"); no value sits within 1% of the oversize limits.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
KG = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}
CM = {"cm": 1.0, "mm": 0.1, "m": 100.0, "in": 2.54}
rows = []
while len(rows) < rng.randint(12, 18):
    kg, cm = rng.uniform(0.05, 32), rng.uniform(5, 160)
    if abs(kg - 20) < 0.3 or abs(cm - 100) < 1.5:
        continue
    wu, lu = rng.choice(list(KG)), rng.choice(list(CM))
    # Traps on every seed (task.toml): the first parcel in non-base units written in upper case, the
    # second in lb or oz and inches.
    upper = len(rows) == 0
    if len(rows) == 0:
        wu, lu = rng.choice(["g", "lb", "oz"]), rng.choice(["mm", "m", "in"])
    elif len(rows) == 1:
        wu, lu = rng.choice(["lb", "oz"]), "in"
    w = round(kg / KG[wu], 1 if wu in ("kg", "lb") else 0)
    length = round(cm / CM[lu], 2 if lu == "m" else 1)
    if w <= 0 or length <= 0 or abs(w * KG[wu] - 20) < 0.3 or abs(length * CM[lu] - 100) < 1.5:
        continue
    def show(v, u):
        num = f"{v:g}"
        u = u.upper() if rng.random() < 0.2 or upper else u.lower() if len(rows) == 1 else u
        return f"{num}{rng.choice([' ', '', ' '])}{u}"
    rows.append([f"P{rng.randint(10000, 99999)}", show(w, wu), show(length, lu)])
Path("data").mkdir(exist_ok=True)
with open("data/parcels.csv", "w", newline="") as fh:
    writer = csv.writer(fh)
    writer.writerow(["parcel_id", "weight", "length"])
    writer.writerows(rows)
PY
