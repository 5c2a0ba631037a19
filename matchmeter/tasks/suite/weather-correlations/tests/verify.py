"""weather-correlations verifier: each cell must match pairwise-complete or listwise-complete
Pearson r within 0.0015 (3-decimal rounding); layout checked separately."""

import csv
import math

from verifylib import grade, pristine, read

COLS = ["temperature_c", "humidity_pct", "pressure_hpa", "wind_ms"]
with open(pristine() / "data" / "station.csv", newline="") as fh:
    data = [{c: row[c].strip() for c in COLS} for row in csv.DictReader(fh)]


def pearson(pairs):
    n = len(pairs)
    mx, my = sum(p[0] for p in pairs) / n, sum(p[1] for p in pairs) / n
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    return sxy / math.sqrt(sum((x - mx) ** 2 for x, _ in pairs) * sum((y - my) ** 2 for _, y in pairs))


complete = [r for r in data if all(r.values())]
options = {}
for a in COLS:
    for b in COLS:
        pairwise = [(float(r[a]), float(r[b])) for r in data if r[a] and r[b]]
        listwise = [(float(r[a]), float(r[b])) for r in complete]
        options[a, b] = (pearson(pairwise), pearson(listwise))


def table():
    return [row for row in csv.reader((read("answer/correlations.csv") or "").splitlines()) if row]


def layout():
    t = table()
    return (len(t) == 5 and [c.strip() for c in t[0][1:]] == COLS
            and [r[0].strip() for r in t[1:]] == COLS and all(len(r) == 5 for r in t))


def values():
    """The 12 off-diagonal cells (a diagonal of 1s is free): the dropouts are the task."""
    t = table()
    hits = 0
    for i, a in enumerate(COLS):
        for j, b in enumerate(COLS):
            if i == j:
                continue
            try:
                got = float(t[i + 1][j + 1])
            except (IndexError, ValueError):
                continue
            hits += any(abs(got - want) <= 0.0015 for want in options[a, b])
    return hits / 12


# The layout pays only beside mostly right values: a well-formed matrix of wrong numbers is no answer.
grade({"layout": 0.3, "values": 0.7}, {"layout": lambda: layout() and values() >= 0.5, "values": values})
