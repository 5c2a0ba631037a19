"""iqr-clean-mean verifier: Tukey fences; the seeded gap makes every quartile method agree, which
is checked here (inclusive and exclusive methods) so the expectation is unambiguous."""

import csv
import json
import statistics

from verifylib import close, grade, pristine, read

with open(pristine() / "data" / "build_times.csv", newline="") as fh:
    values = [float(row["duration_s"]) for row in csv.DictReader(fh)]
sets = set()
for method in ("inclusive", "exclusive"):
    q1, _, q3 = statistics.quantiles(values, n=4, method=method)
    lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
    sets.add(tuple(v for v in values if lo <= v <= hi))
assert len(sets) == 1, "seeded data lets quartile methods disagree"
kept = sets.pop()


def answer():
    return json.loads(read("answer.json"))


grade({"outliers": 0.5, "clean_mean_s": 0.5},
      {"outliers": lambda: int(answer()["outliers"]) == len(values) - len(kept),
       "clean_mean_s": lambda: close(answer()["clean_mean_s"], statistics.fmean(kept), 0.01)})
