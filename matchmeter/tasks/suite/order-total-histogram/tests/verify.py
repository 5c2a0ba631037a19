"""order-total-histogram verifier: seven band counts (no total lies on a band edge), one per line."""

import csv

from verifylib import grade, pristine, read

EDGES = [25, 50, 100, 250, 500, 1000]
expected = [0] * 7
with open(pristine() / "data" / "orders.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        if row["total"].strip():
            value = float(row["total"].replace(",", ""))
            expected[sum(value >= e for e in EDGES)] += 1


def counts():
    lines = [ln for ln in (read("answer/histogram.txt") or "").splitlines() if ln.strip()]
    # Accept "123" as well as "25-50: 123": the count is the last token of the line.
    return [int(ln.replace(",", " ").replace(":", " ").split()[-1]) for ln in lines]


grade({"shape": 0.2, "counts": 0.8},
      {"shape": lambda: len(counts()) == 7,
       "counts": lambda: sum(a == b for a, b in zip(counts(), expected)) / 7 if len(counts()) == 7 else 0})
