"""depot-nearest-haversine verifier: coordinates from the customer row or, when blank, from the
postcode table after normalizing case and spaces; haversine R=6371; distances within 0.05 km."""

import csv
import json
import math
from collections import defaultdict

from verifylib import close, grade, pristine, read

root = pristine() / "data"
norm = lambda code: "".join(code.split()).upper()  # noqa: E731
depots = {d["code"]: (d["location"]["lat"], d["location"]["lon"]) for d in json.loads((root / "depots.json").read_text())}
with open(root / "postcodes.csv", newline="") as fh:
    book = {norm(r["postcode"]): (float(r["lat"]), float(r["lon"])) for r in csv.DictReader(fh)}


def km(a, b):
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b[1] - a[1]) / 2) ** 2
    return 2 * 6371 * math.asin(math.sqrt(h))


best, by_postcode = {}, set()
with open(root / "customers.csv", newline="") as fh:
    for r in csv.DictReader(fh):
        if not r["lat"].strip():
            by_postcode.add(r["customer_id"])
        spot = (float(r["lat"]), float(r["lon"])) if r["lat"].strip() else book[norm(r["postcode"])]
        code = min(depots, key=lambda c: km(spot, depots[c]))
        best[r["customer_id"]] = (code, km(spot, depots[code]))
groups = defaultdict(list)
for code, dist in best.values():
    groups[code].append(dist)


def rows():
    return {r["customer_id"].strip(): r for r in csv.DictReader((read("answer/assignments.csv") or "").splitlines())}


def gated(hit):
    """Share of customers with coordinates that hit, times the share of those found by postcode: the
    customers without coordinates are the task, not a remainder to skip."""
    shares = []
    for group in (set(best) - by_postcode, by_postcode):
        shares.append(sum(hit(c) for c in group) / len(group))
    return shares[0] * shares[1]


def depot_ok():
    got = rows()
    return gated(lambda c: got.get(c, {}).get("depot", "").strip() == best[c][0])


def dist_ok():
    got = rows()
    return gated(lambda c: c in got and close(got[c]["distance_km"], best[c][1], 0.05))


def summary():
    return json.loads(read("answer/depot_summary.json"))


def counts():
    s = summary()
    return sum(int(s.get(c, {}).get("customers", -1)) == len(v) for c, v in groups.items()) / len(groups)


def means():
    s = summary()
    return sum(close(s.get(c, {}).get("mean_km"), sum(v) / len(v), 0.05) for c, v in groups.items()) / len(groups)


grade({"depots": 0.4, "distances": 0.2, "counts": 0.2, "means": 0.2},
      {"depots": depot_ok, "distances": dist_ok, "counts": counts, "means": means})
