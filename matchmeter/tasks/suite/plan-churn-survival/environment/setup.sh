#!/usr/bin/env bash
# Seeds data/subscriptions.csv and data/cancellations.csv (effective or withdrawn requests, some
# subscriptions with several requests) plus data/README.txt with the extract date. Plans differ in
# churn hazard; one plan churns so slowly that its median is never reached within the data.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import datetime as dt
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
as_of = dt.date(2024, 10, 1)
plans = {"starter": rng.uniform(80, 160), "growth": rng.uniform(200, 380), "scale": rng.uniform(2000, 3500)}
subs, cancels = [], []
withdrawn = dict.fromkeys(plans, 0)  # on every seed each plan's first five subscriptions file one in 60 days
for i in range(rng.randint(300, 500)):
    plan = rng.choices(list(plans), [5, 4, 2])[0]
    start = as_of - dt.timedelta(days=rng.randint(20, 640))
    life = int(rng.expovariate(1 / plans[plan])) + 1
    sid = f"S-{40000 + i * 3}"
    subs.append([sid, f"cust{rng.randint(1000, 9999)}", plan, start.isoformat()])
    end = start + dt.timedelta(days=life)
    if rng.random() < 0.08 or withdrawn[plan] < 5:  # a request the customer took back; the subscription went on
        cap = min(life, (as_of - start).days) if withdrawn[plan] >= 5 else min(life, (as_of - start).days, 60)
        early = start + dt.timedelta(days=rng.randint(1, max(1, cap - 1)))
        withdrawn[plan] += 1
        cancels.append([sid, early.isoformat(), "withdrawn"])
    if end < as_of:
        cancels.append([sid, end.isoformat(), "effective"])
cancels.sort(key=lambda c: c[1])
Path("data").mkdir(exist_ok=True)
for name, header, rows in (("subscriptions.csv", ["subscription_id", "customer", "plan", "started_on"], subs),
                           ("cancellations.csv", ["subscription_id", "cancelled_on", "status"], cancels)):
    with open(Path("data", name), "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
Path("data/README.txt").write_text(
    "Billing extract taken 2024-10-01 (start of day). Subscriptions without an effective cancellation\n"
    "were still active at extract time. cancelled_on is the day the cancellation took effect.\n")
PY
