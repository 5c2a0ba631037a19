#!/usr/bin/env bash
# Seeds data/shifts.csv: shifts around the turn of the year (ISO week-year differs from the calendar
# year), start/end as ISO 8601 with fixed UTC offsets (incl. +05:30, Z, and a space instead of T),
# some crossing midnight or the week boundary only in UTC, and 1-3 planted overlaps whose local
# times are written in different offsets.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
OFFSETS = [-8 * 60, -5 * 60, 0, 60, 330, 540]


def show(t, minutes):
    local = t.astimezone(timezone(timedelta(minutes=minutes)))
    text = local.isoformat(sep=rng.choice(["T", "T", " "]), timespec=rng.choice(["minutes", "seconds"]))
    return text.replace("+00:00", "Z") if minutes == 0 and rng.random() < 0.7 else text


people = rng.sample(["amara", "bjorn", "carmen", "deshawn", "elif", "farah", "goran", "hana"], rng.randint(4, 6))
base = datetime(2024, 12, rng.randint(18, 24), tzinfo=timezone.utc)
rows, sid = [], rng.randint(100, 400)
for person in people:
    home = rng.choice(OFFSETS)
    t = base + timedelta(hours=rng.randint(0, 30))
    shifts = []
    for _ in range(rng.randint(5, 9)):
        start = t + timedelta(minutes=15 * rng.randint(0, 8))
        end = start + timedelta(minutes=30 * rng.randint(8, 24))
        shifts.append([start, end])
        t = end + timedelta(hours=rng.randint(9, 60))
    for i in rng.sample(range(1, len(shifts)), rng.randint(0, 2)):
        prev = shifts[i - 1]
        length = shifts[i][1] - shifts[i][0]
        shifts[i][0] = prev[1] - timedelta(minutes=30 * rng.randint(1, 4))  # starts before the previous one ends
        shifts[i][1] = shifts[i][0] + length
    for start, end in shifts:
        sid += rng.randint(1, 4)
        off = home if rng.random() < 0.75 else rng.choice(OFFSETS)
        rows.append([f"S{sid}", person, show(start, off), show(end, off)])
rng.shuffle(rows)
Path("data").mkdir(exist_ok=True)
with open("data/shifts.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["shift_id", "employee", "start", "end"])
    w.writerows(rows)
PY
