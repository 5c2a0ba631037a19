"""household-gini verifier: Gini (population or n/(n-1) sample form) within 5e-4; top-10% share
with the top group sized floor, round or ceil of n/10, within 1e-3."""

import csv
import json
import math

from verifylib import close, grade, pristine, read

incomes = []
with open(pristine() / "data" / "households.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        try:
            incomes.append(float(row["annual_income"]))
        except ValueError:
            pass
incomes.sort()
n, total = len(incomes), sum(incomes)
# Sorted-rank form of the mean absolute difference: G = sum((2i - n - 1) x_i) / (n * sum x).
gini = sum((2 * i - n - 1) * x for i, x in enumerate(incomes, 1)) / (n * total)
ginis = [gini, gini * n / (n - 1)]
shares = [sum(incomes[-k:]) / total for k in {math.floor(n / 10), round(n / 10), math.ceil(n / 10)} if k]


def answer():
    return json.loads(read("answer.json"))


grade({"gini": 0.6, "top10_share": 0.4},
      {"gini": lambda: any(close(answer()["gini"], g, 5e-4) for g in ginis),
       "top10_share": lambda: any(close(answer()["top10_share"], s, 1e-3) for s in shares)})
