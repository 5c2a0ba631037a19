#!/usr/bin/env bash
# Seeds data/shifts.csv: shifts around the turn of the year, start/end as ISO 8601 with fixed UTC
# offsets (incl. +05:30, Z, and a space instead of T), some crossing midnight. Every seed plants the
# four traps task.toml lists, each on its own employee (a timeline moved as a whole, so nothing else
# changes): a shift whose local start falls in another ISO week than its UTC start; a shift starting on
# 30/31 Dec 2024 UTC (ISO week-year 2025); an overlap whose two shifts are written in offsets so far
# apart that their wall-clock times do not overlap; and a shift starting exactly when the previous ends.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
OFFSETS = [-8 * 60, -5 * 60, 0, 60, 330, 540]
H = timedelta(hours=1)


def show(t, minutes):
    local = t.astimezone(timezone(timedelta(minutes=minutes)))
    text = local.isoformat(sep=rng.choice(["T", "T", " "]), timespec=rng.choice(["minutes", "seconds"]))
    return text.replace("+00:00", "Z") if minutes == 0 and rng.random() < 0.7 else text


def timeline(n, gaps):
    """n shifts [start, end, offset or None]; gaps maps index -> gap to the previous end (negative: overlap)."""
    t = datetime(2024, 12, 16, tzinfo=timezone.utc) + timedelta(hours=rng.randint(0, 30))
    shifts = []
    for i in range(n):
        if i:
            t = shifts[-1][1] + gaps.get(i, timedelta(hours=rng.randint(9, 60)))
        start = t + (timedelta(minutes=15 * rng.randint(0, 8)) if i not in gaps else timedelta(0))
        shifts.append([start, start + timedelta(minutes=30 * rng.randint(8, 24)), None])
    return shifts


def move(shifts, i, when):
    """Translate the whole timeline so that shift i starts at `when`."""
    delta = when - shifts[i][0]
    for s in shifts:
        s[0] += delta
        s[1] += delta


people = rng.sample(["amara", "bjorn", "carmen", "deshawn", "elif", "farah", "goran", "hana"], rng.randint(4, 6))
plans = {}
for person in people:
    n = rng.randint(5, 9)
    gaps = {i: -timedelta(minutes=30 * rng.randint(1, 4)) for i in rng.sample(range(1, n), rng.randint(0, 2))}
    plans[person] = (n, gaps)
week_p, year_p, overlap_p, touch_p = rng.sample(people, 4)
n, gaps = plans[overlap_p]
o = rng.randrange(1, n)
gaps[o] = -timedelta(minutes=30 * rng.randint(1, 4))
n, gaps = plans[touch_p]
tch = rng.choice([i for i in range(1, n) if i not in gaps])
gaps[tch] = timedelta(0)
lines = {p: timeline(*plans[p]) for p in people}

# week boundary: a start 1-4 h before or after a Monday 00:00 UTC, in an offset that moves it across
shifts = lines[week_p]
i = rng.randrange(len(shifts))
monday = datetime(2024, 12, rng.choice([23, 30]), tzinfo=timezone.utc) + 7 * rng.randint(0, 1) * 24 * H
before = rng.random() < 0.5
move(shifts, i, monday + (-1 if before else 1) * timedelta(minutes=15 * rng.randint(4, 16)))
gap = abs(monday - shifts[i][0])
shifts[i][2] = rng.choice([m for m in OFFSETS if (m if before else -m) * 60 > gap.total_seconds() / 60 * 60])
# ISO week-year: a UTC start on 30 or 31 December 2024 (ISO week 2025-W01)
shifts = lines[year_p]
move(shifts, rng.randrange(len(shifts)), datetime(2024, 12, rng.choice([30, 31]), rng.randint(2, 20),
                                                  15 * rng.randint(0, 3), tzinfo=timezone.utc))
# the overlap in far-apart offsets: the later shift's offset at least 3 h east of the earlier one's
shifts = lines[overlap_p]
west = rng.choice([-480, -300, 0])
shifts[o - 1][2] = west
shifts[o][2] = rng.choice([m for m in OFFSETS if m - west >= 180])
# touching: written in two different offsets
shifts = lines[touch_p]
shifts[tch - 1][2], shifts[tch][2] = rng.sample(OFFSETS, 2)

rows, sid = [], rng.randint(100, 400)
for person in people:
    home = rng.choice(OFFSETS)
    for start, end, off in lines[person]:
        sid += rng.randint(1, 4)
        if off is None:
            off = home if rng.random() < 0.75 else rng.choice(OFFSETS)
        rows.append([f"S{sid}", person, show(start, off), show(end, off)])
rng.shuffle(rows)
Path("data").mkdir(exist_ok=True)
with open("data/shifts.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["shift_id", "employee", "start", "end"])
    w.writerows(rows)
PY
