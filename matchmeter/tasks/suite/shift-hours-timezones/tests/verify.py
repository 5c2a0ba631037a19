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


def traps():
    """The named traps (task.toml) all handled: every week label a local start or the calendar year would
    give instead is right or absent, and every pair whose wall-clock times or touching ends would mislead
    is classed right. A sloppy answer fails one and is paid nothing, so skipping a trap never pays."""
    got = {(r[0], r[1]): r[2] for r in hour_rows()}
    for _, who, start, _end in shifts:
        utc = start.astimezone(timezone.utc)
        right = (who, "%d-W%02d" % utc.isocalendar()[:2])
        for wrong in {(who, "%d-W%02d" % start.isocalendar()[:2]), (who, "%d-W%02d" % (utc.year, utc.isocalendar()[1]))}:
            if wrong != right and wrong in got and not (wrong in hours and abs(float(got[wrong]) - hours[wrong]) < 0.006):
                return False
        if right not in got or abs(float(got[right]) - hours[right]) >= 0.006:
            return False
    said = {(e, frozenset((a, b))) for e, a, b, *_ in table("report/overlaps.csv", ["employee", "first_shift", "second_shift"])}
    for i, a in enumerate(shifts):
        for b in shifts[i + 1:]:
            naive = a[2].replace(tzinfo=None) < b[3].replace(tzinfo=None) and b[2].replace(tzinfo=None) < a[3].replace(tzinfo=None)
            real = a[2] < b[3] and b[2] < a[3]
            touching = a[3] == b[2] or b[3] == a[2]
            if a[1] == b[1] and (naive != real or touching) and ((a[1], frozenset((a[0], b[0]))) in said) != real:
                return False
    return True


def gated(check):
    def run():
        try:
            ok = traps()
        except Exception:  # noqa: BLE001 - a missing or malformed report handles no trap
            ok = False
        return check() if ok else 0.0
    return run


grade({"iso_weeks": 0.25, "weekly_hours": 0.35, "hours_sorted": 0.1, "overlaps": 0.3},
      {"iso_weeks": gated(weeks), "weekly_hours": gated(totals), "hours_sorted": gated(ordered), "overlaps": gated(pairs)})
