"""sensor-medians verifier: per-sensor median (within 1e-6) and skipped count."""

import csv
import json
import math
import statistics
from collections import defaultdict

from verifylib import close, grade, pristine, read

good, skipped = defaultdict(list), defaultdict(int)
with open(pristine() / "data" / "readings.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        try:
            value = float(row["value"])
            if math.isnan(value):
                raise ValueError
            good[row["sensor_id"]].append(value)
        except ValueError:
            skipped[row["sensor_id"]] += 1
sensors = sorted(set(good) | set(skipped))


def report():
    return json.loads(read("report.json"))


def keys():
    return set(report()) == set(sensors)


def medians():
    """A sensor's median pays only beside its right skipped count: telling junk from readings is the task
    (dropping blanks silently kept the medians, 0.7)."""
    r = report()
    return sum(close(r.get(s, {}).get("median"), statistics.median(good[s]), 1e-6)
               and r.get(s, {}).get("skipped") == skipped[s] for s in sensors) / len(sensors)


def counts():
    r = report()
    return sum(r.get(s, {}).get("skipped") == skipped[s] for s in sensors) / len(sensors)


grade({"sensors": 0.2, "medians": 0.5, "skipped": 0.3}, {"sensors": keys, "medians": medians, "skipped": counts})
