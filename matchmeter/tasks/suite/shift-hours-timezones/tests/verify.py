"""shift-hours-timezones verifier: weekly hours by ISO week of the UTC start, and overlapping pairs."""

import csv
import io
from collections import defaultdict
from datetime import datetime, timezone

from verifylib import grade, pristine, read

with open(pristine() / "data" / "shifts.csv", newline="") as fh:
    shifts = [(r["shift_id"], r["employee"], datetime.fromisoformat(r["start"]), datetime.fromisoformat(r["end"]))
              for r in csv.DictReader(fh)]
hours = defaultdict(float)
for _, who, start, end in shifts:
    year, week, _ = start.astimezone(timezone.utc).isocalendar()
    hours[(who, f"{year}-W{week:02d}")] += (end - start).total_seconds() / 3600
overlaps = set()
for i, a in enumerate(shifts):
    for b in shifts[i + 1:]:
        if a[1] == b[1] and a[2] < b[3] and b[2] < a[3]:
            first, second = sorted((a, b), key=lambda s: s[2])
            overlaps.add((a[1], first[0], second[0]))


def table(path, header):
    rows = list(csv.reader(io.StringIO(read(path))))
    assert rows[0] == header
    return [r for r in rows[1:] if r]


def hour_rows():
    return table("report/hours.csv", ["employee", "week", "hours"])


def weeks():
    got = {(r[0], r[1]) for r in hour_rows()}
    return len(got & set(hours)) / len(got | set(hours))


def totals():
    got = {(r[0], r[1]): r[2] for r in hour_rows()}
    return sum(k in got and abs(float(got[k]) - v) < 0.006 for k, v in hours.items()) / max(len(hours), len(got))


def ordered():
    return [(r[0], r[1]) for r in hour_rows()] == sorted(hours)


def pairs():
    got = {tuple(r[:3]) for r in table("report/overlaps.csv", ["employee", "first_shift", "second_shift"])}
    if got == overlaps:
        return 1.0
    unordered = {(e, frozenset((a, b))) for e, a, b in got} == {(e, frozenset((a, b))) for e, a, b in overlaps}
    return 0.7 if unordered else 0.0


grade({"iso_weeks": 0.25, "weekly_hours": 0.35, "hours_sorted": 0.1, "overlaps": 0.3},
      {"iso_weeks": weeks, "weekly_hours": totals, "hours_sorted": ordered, "overlaps": pairs})
