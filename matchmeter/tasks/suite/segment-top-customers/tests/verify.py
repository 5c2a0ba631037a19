"""segment-top-customers verifier: ids normalized (trim, upper) before the join; completed orders only.
Per segment the three ids in rank order must match; revenues within 0.01 (sums of random cents
make ties practically impossible)."""

import csv
from collections import defaultdict

from verifylib import close, grade, pristine, read

root = pristine() / "data"
segment_of = {}
with open(root / "customers.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        segment_of[row["customer_id"]] = row["segment"]
revenue = defaultdict(float)
with open(root / "orders.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        cid = row["customer_id"].strip().upper()
        if row["status"] == "completed" and cid in segment_of:
            revenue[cid] += float(row["amount"])
expected = {}
for seg in set(segment_of.values()):
    ranked = sorted((c for c in segment_of if segment_of[c] == seg and c in revenue), key=lambda c: -revenue[c])
    expected[seg] = ranked[:3]


def table():
    got = defaultdict(dict)
    for row in csv.DictReader((read("answer/top_customers.csv") or "").splitlines()):
        got[row["segment"].strip()][int(row["rank"])] = (row["customer_id"].strip(), float(row["revenue"]))
    return got


def segments():  # the segment list is in customers.csv for anyone to copy: it counts once every id is right
    return set(table()) == set(expected) and ids() == 1


def ids():
    got = table()
    hits = [got.get(s, {}).get(k + 1, ("",))[0] == c for s, top in expected.items() for k, c in enumerate(top)]
    return sum(hits) / len(hits)


def revenues():
    got = table()
    hits = [close(got.get(s, {}).get(k + 1, ("", None))[1], revenue[c], 0.01)
            for s, top in expected.items() for k, c in enumerate(top)]
    return sum(hits) / len(hits)


grade({"segments": 0.2, "ids": 0.5, "revenues": 0.3}, {"segments": segments, "ids": ids, "revenues": revenues})
