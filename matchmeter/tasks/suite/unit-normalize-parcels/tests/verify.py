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


def traps():
    """The named traps (task.toml) all handled: every parcel with an upper-case or an imperial unit has its
    weight, length and flag right. A sloppy answer fails one and is paid nothing."""
    try:
        got = matched()
        for r, (g, kg, cm) in zip(source, got):
            units = [re.sub(r"[^A-Za-z]", "", r[k]) for k in ("weight", "length")]
            if any(u != u.lower() or u.lower() in ("lb", "oz", "in") for u in units):
                flag = "yes" if kg > 20 or cm > 100 else "no"
                if g is None or abs(float(g[1]) - kg) > 0.0015 or abs(float(g[2]) - cm) > 0.06 or g[3].strip().lower() != flag:
                    return False
        return True
    except Exception:  # noqa: BLE001 - no readable output handles no trap
        return False


def gated(check):
    return lambda: check() if traps() else 0.0


grade({"weights_kg": 0.35, "lengths_cm": 0.3, "oversize": 0.2, "same_parcels_order": 0.15},
      {"weights_kg": gated(weights), "lengths_cm": gated(lengths), "oversize": gated(oversize), "same_parcels_order": gated(order)})
