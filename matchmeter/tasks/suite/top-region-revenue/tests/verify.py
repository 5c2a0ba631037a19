"""top-region-revenue verifier: region name exact, revenue within 0.01."""

import csv
from collections import defaultdict

from verifylib import close, grade, pristine, read

totals = defaultdict(float)
with open(pristine() / "data" / "sales.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        totals[row["region"]] += int(row["units"]) * float(row["unit_price"])
region = max(totals, key=totals.get)


def region_ok():
    return (read("answer/region.txt") or "").strip() == region


def revenue_ok():
    text = (read("answer/revenue.txt") or "").strip().replace(",", "")
    return close(float(text), totals[region], 0.01)


grade({"region": 0.5, "revenue": 0.5}, {"region": region_ok, "revenue": revenue_ok})
