"""Trap: the largest weekly increase starts on another day when weeks run Sunday to Saturday."""
import csv
import datetime as dt
import glob
import sys
from collections import defaultdict

day = defaultdict(float)
for f in glob.glob("data/sales/*.csv"):
    for r in csv.DictReader(open(f, newline="")):
        day[dt.date.fromisoformat(r["date"])] += float(r["revenue"])


def best(shift):
    """Start of the week with the largest increase, weeks starting `shift` days before Monday."""
    wk = defaultdict(float)
    for d, v in day.items():
        wk[d - dt.timedelta(days=(d.weekday() + shift) % 7)] += v
    ms = sorted(wk)
    return max(zip(ms, ms[1:]), key=lambda p: wk[p[1]] - wk[p[0]])[1]


if not day or best(1).weekday() == 0 or best(1) == best(0):
    sys.exit("Sunday-start weeks find the same week start")
