"""spend-signups-fit verifier: OLS slope / intercept / R^2 over the weeks with numeric signups."""

import csv
import json

from verifylib import grade, pristine, read

xs, ys = [], []
with open(pristine() / "data" / "campaign_weeks.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        if row["signups"].strip().isdigit():
            xs.append(float(row["ad_spend_eur"]))
            ys.append(float(row["signups"]))
n = len(xs)
mx, my = sum(xs) / n, sum(ys) / n
sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
sxx = sum((x - mx) ** 2 for x in xs)
slope = sxy / sxx
intercept = my - slope * mx
ss_res = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys))
r2 = 1 - ss_res / sum((y - my) ** 2 for y in ys)


def near(key, want, rel):
    got = float(json.loads(read("answer.json"))[key])
    return abs(got - want) <= rel * max(abs(want), 1e-9)


grade({"slope": 0.4, "intercept": 0.3, "r_squared": 0.3},
      {"slope": lambda: near("slope", slope, 1e-4),
       "intercept": lambda: near("intercept", intercept, 1e-4),
       "r_squared": lambda: near("r_squared", r2, 1e-3)})
