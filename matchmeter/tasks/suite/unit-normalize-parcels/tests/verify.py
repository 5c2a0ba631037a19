"""unit-normalize-parcels verifier: weights in kg, lengths in cm (tolerant), oversize flags, same order."""

import csv
import io
import re

from verifylib import grade, pristine, read

KG = {"kg": 1.0, "g": 0.001, "lb": 0.45359237, "oz": 0.028349523125}
CM = {"cm": 1.0, "mm": 0.1, "m": 100.0, "in": 2.54}
with open(pristine() / "data" / "parcels.csv", newline="") as fh:
    source = list(csv.DictReader(fh))


def convert(text, table):
    num, unit = re.fullmatch(r"\s*([\d.]+)\s*([A-Za-z]+)\s*", text).groups()
    return float(num) * table[unit.lower()]


expected = [(r["parcel_id"], convert(r["weight"], KG), convert(r["length"], CM)) for r in source]


def rows():
    parsed = list(csv.reader(io.StringIO(read("data/parcels_metric.csv"))))
    assert parsed[0] == ["parcel_id", "weight_kg", "length_cm", "oversize"]
    return [r for r in parsed[1:] if r]


def matched():
    got = {r[0]: r for r in rows()}
    return [(got.get(pid), kg, cm) for pid, kg, cm in expected]


def weights():
    return sum(g is not None and abs(float(g[1]) - kg) <= 0.0015 for g, kg, _ in matched()) / len(expected)


def lengths():
    return sum(g is not None and abs(float(g[2]) - cm) <= 0.06 for g, _, cm in matched()) / len(expected)


def oversize():
    want = ["yes" if kg > 20 or cm > 100 else "no" for _, kg, cm in expected]
    return sum(g is not None and g[3].strip().lower() == w for (g, _, _), w in zip(matched(), want)) / len(expected)


def order():
    return [r[0] for r in rows()] == [pid for pid, _, _ in expected]


grade({"weights_kg": 0.35, "lengths_cm": 0.3, "oversize": 0.2, "same_parcels_order": 0.15},
      {"weights_kg": weights, "lengths_cm": lengths, "oversize": oversize, "same_parcels_order": order})
