"""Trap: some plan's Kaplan-Meier curve stays above 50%."""
import csv
import datetime as dt
import sys
from collections import defaultdict

D = dt.date.fromisoformat
cancels = list(csv.DictReader(open("data/cancellations.csv", newline="")))
subs = list(csv.DictReader(open("data/subscriptions.csv", newline="")))
end = {r["subscription_id"]: D(r["cancelled_on"]) for r in cancels if r["status"] == "effective"}
plans = {r["plan"] for r in subs}
obs = defaultdict(list)
for r in subs:
    sid = r["subscription_id"]
    obs[r["plan"]].append(((end.get(sid, D("2024-10-01")) - D(r["started_on"])).days, sid in end))
low = set()
for p, xs in obs.items():
    s, n = 1.0, len(xs)
    for t in sorted({t for t, _ in xs}):
        s *= 1 - sum(1 for u, e in xs if u == t and e) / n
        n -= sum(1 for u, _ in xs if u == t)
    if s <= 0.5:
        low.add(p)
bad = [] if plans - low else ["every plan halves"]
if bad:
    sys.exit(f"not so: {bad}")
