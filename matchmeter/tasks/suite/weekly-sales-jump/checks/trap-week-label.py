"""Trap: the data covers whole Monday-to-Sunday weeks, so the best week's Monday and Sunday both are dates in it."""
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


m = best(0) if day else None
if m is None or m not in day or (m + dt.timedelta(days=6)) not in day or min(day).weekday() != 0:
    sys.exit("the data does not start on a Monday or the best week is not whole")
