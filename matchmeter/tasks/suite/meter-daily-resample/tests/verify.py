"""meter-daily-resample verifier: local days from the timestamp text, duplicate hours once, blank
readings are missing; estimate = mean of the day's readings x 24, within 0.01."""

import csv

from verifylib import close, grade, pristine, read

hours = {}
with open(pristine() / "data" / "meter_readings.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        if row["kwh"].strip():
            hours[row["timestamp"]] = float(row["kwh"])
per_day = {}
for stamp, kwh in hours.items():
    per_day.setdefault(stamp[:10], []).append(kwh)
expected = {d: (len(v), sum(v) / len(v) * 24) for d, v in per_day.items()}


def rows():
    return [r for r in csv.DictReader((read("answer/daily.csv") or "").splitlines())]


def dates():
    got = [r["date"].strip() for r in rows()]
    return got == sorted(expected)


def counts():
    """A day's hour count pays only beside its right estimate: filling the gaps is the task."""
    got = {r["date"].strip(): (int(r["hours"]), float(r["kwh"])) for r in rows()}
    return sum(d in got and got[d][0] == n and close(got[d][1], e, 0.0101) for d, (n, e) in expected.items()) / len(expected)


def kwh():
    got = {r["date"].strip(): float(r["kwh"]) for r in rows()}
    return sum(close(got.get(d), expected[d][1], 0.0101) for d in expected) / len(expected)


grade({"dates": 0.2, "hours": 0.35, "kwh": 0.45}, {"dates": dates, "hours": counts, "kwh": kwh})
