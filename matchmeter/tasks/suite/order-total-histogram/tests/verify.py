"""order-total-histogram verifier: seven band counts (no total lies on an inner band edge; 25 and 1000
belong to the band they start), one per line, all seven right."""

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
       # All seven or nothing: six right bands are what skipping the drafts, the "1,234.50" totals or the
       # edges 25 and 1000 still gets.
       "counts": lambda: counts() == expected})
