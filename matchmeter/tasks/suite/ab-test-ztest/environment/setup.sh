#!/usr/bin/env bash
# Seeds data/assignments.csv (some users logged twice) and data/events.csv (page views, carts and
# purchases, including purchases made before a user entered the experiment and users outside it).
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import datetime as dt
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
t0 = dt.datetime(2024, 3, 1, tzinfo=dt.timezone.utc)
rates = {"control": rng.uniform(0.08, 0.14)}
rates["treatment"] = rates["control"] * rng.uniform(0.9, 1.45)
stamp = lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
assign, events = [], []
doubled, bought_before = set(), set()  # each arm gets both traps on every seed (first user drawn for it)
for i in range(rng.randint(1500, 2600)):
    user = f"u{100000 + i * 13}"
    start = t0 + dt.timedelta(seconds=rng.randint(0, 14 * 86400))
    if rng.random() < 0.85:
        arm = rng.choice(["control", "treatment"])
        assign.append([user, arm, stamp(start)])
        if rng.random() < 0.05 or arm not in doubled:
            assign.append([user, arm, stamp(start)])
            doubled.add(arm)
        converts = rng.random() < rates[arm]
    else:
        arm, converts = None, rng.random() < 0.1  # not in the experiment
    for _ in range(rng.randint(1, 4)):
        events.append([user, "page_view", stamp(start + dt.timedelta(seconds=rng.randint(1, 3000)))])
    if rng.random() < 0.04 or (arm and not converts and arm not in bought_before):  # bought before the experiment
        bought_before.add(arm)
        events.append([user, "purchase", stamp(start - dt.timedelta(seconds=rng.randint(3600, 400000)))])
    if converts:
        for _ in range(rng.choice([1, 1, 1, 2])):
            t = start + dt.timedelta(seconds=rng.randint(60, 5 * 86400))
            events.append([user, "add_to_cart", stamp(t - dt.timedelta(seconds=30))])
            events.append([user, "purchase", stamp(t)])
events.sort(key=lambda e: e[2])
Path("data").mkdir(exist_ok=True)
for name, header, rows in (("assignments.csv", ["user_id", "variant", "assigned_at"], assign),
                           ("events.csv", ["user_id", "event", "ts"], events)):
    with open(Path("data", name), "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
PY
