#!/usr/bin/env bash
# Seeds data/depots.json (nested coordinates), data/customers.csv (a third without coordinates, their
# postcodes typed in any case/spacing, the first two always without / with a doubled space) and data/postcodes.csv (canonical "AB1 2CD" form). Customers
# cluster around depots; each one's nearest depot beats the runner-up by >= 2 km.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import json
import math
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))


def km(a, b):
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b[1] - a[1]) / 2) ** 2
    return 2 * 6371 * math.asin(math.sqrt(h))


cities = rng.sample(["Ashford", "Bexley", "Carlow", "Dorrington", "Elmstead", "Fenwick", "Glenmoor", "Hartley"], rng.randint(4, 6))
depots = []
while len(depots) < len(cities):
    spot = (round(rng.uniform(50.5, 54.5), 5), round(rng.uniform(-3.5, 0.5), 5))
    if all(km(spot, d) > 60 for d in depots):
        depots.append(spot)
letters = "ABCDEFGHJKLMNPRSTUWXY"
postcodes, customers = {}, []
target = rng.randint(80, 140)
while len(customers) < target:
    home = depots[rng.randrange(len(depots))]
    spot = (round(home[0] + rng.gauss(0, 0.35), 5), round(home[1] + rng.gauss(0, 0.5), 5))
    dist = sorted(km(spot, d) for d in depots)
    if dist[1] - dist[0] < 2:
        continue
    code = f"{rng.choice(letters)}{rng.choice(letters)}{rng.randint(1, 29)} {rng.randint(1, 9)}{rng.choice(letters)}{rng.choice(letters)}"
    if code in postcodes:
        continue
    postcodes[code] = spot
    cid = f"K{len(customers) + 1:04d}"
    if rng.random() < 0.35 or len(customers) < 2:  # on every seed the first two have only a postcode
        typed = rng.choice([code.lower(), code.replace(" ", ""), code.replace(" ", "  "), code.lower().replace(" ", "")])
        if len(customers) < 2:  # typed without its space and with two
            typed = [code.replace(" ", ""), code.lower().replace(" ", "  ")][len(customers)]
        customers.append([cid, typed, "", ""])
    else:
        customers.append([cid, code, f"{spot[0]:.5f}", f"{spot[1]:.5f}"])
for _ in range(rng.randint(20, 40)):  # other postcodes of the area
    code = f"{rng.choice(letters)}{rng.choice(letters)}{rng.randint(30, 60)} {rng.randint(1, 9)}{rng.choice(letters)}{rng.choice(letters)}"
    postcodes[code] = (round(rng.uniform(50.5, 54.5), 5), round(rng.uniform(-3.5, 0.5), 5))
Path("data").mkdir(exist_ok=True)
Path("data/depots.json").write_text(json.dumps(
    [{"code": f"DEP-{c[:3].upper()}", "city": c, "location": {"lat": d[0], "lon": d[1]}} for c, d in zip(cities, depots)],
    indent=2) + "\n")
with open("data/customers.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["customer_id", "postcode", "lat", "lon"])
    w.writerows(customers)
with open("data/postcodes.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["postcode", "lat", "lon"])
    w.writerows([code, f"{p[0]:.5f}", f"{p[1]:.5f}"] for code, p in sorted(postcodes.items()))
PY
