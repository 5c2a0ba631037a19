#!/usr/bin/env bash
# Seeds data/events.jsonl: sessions of users walking (partly) through view -> cart -> checkout ->
# purchase, with noise events, repeated steps and some steps done out of order (e.g. a cart add
# restored from an earlier visit before the first product view) and steps logged in the same second.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import datetime as dt
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
steps = ["view_product", "add_to_cart", "begin_checkout", "purchase"]
keep = [rng.uniform(0.35, 0.6), rng.uniform(0.4, 0.7), rng.uniform(0.5, 0.8)]
t0 = dt.datetime(2024, 6, 3, tzinfo=dt.timezone.utc)
events = []
for i in range(rng.randint(600, 1100)):
    user = f"usr_{rng.randrange(16**6):06x}{i}"
    t = t0 + dt.timedelta(seconds=rng.randint(0, 6 * 86400))
    reached = 1
    while reached < 4 and rng.random() < keep[reached - 1]:
        reached += 1
    for k in range(reached):
        t += dt.timedelta(seconds=rng.randint(5, 900))
        events.append((t, user, steps[k]))
        if rng.random() < 0.15:
            events.append((t + dt.timedelta(seconds=rng.randint(1, 60)), user, steps[k]))
        if rng.random() < 0.3:
            events.append((t + dt.timedelta(seconds=rng.randint(1, 60)), user, rng.choice(["search", "login", "view_home"])))
    if rng.random() < 0.08:  # a later step logged before the user's first product view
        late = rng.choice(steps[1:])
        events.append((t0 - dt.timedelta(seconds=rng.randint(60, 86400)), user, late))
# On every seed, for each later step k: a user who logged k only before their product view (k does not
# count) and a user who did k at the same second as step k-1 (it counts: "at the same time or later").
for k in range(1, 4):
    user = f"usr_{rng.randrange(16**6):06x}e{k}"
    t = t0 + dt.timedelta(seconds=rng.randint(0, 6 * 86400))
    events.append((t0 - dt.timedelta(seconds=rng.randint(60, 86400)), user, steps[k]))
    for j in range(k):
        t += dt.timedelta(seconds=rng.randint(5, 900))
        events.append((t, user, steps[j]))
    user = f"usr_{rng.randrange(16**6):06x}t{k}"
    t = t0 + dt.timedelta(seconds=rng.randint(0, 6 * 86400))
    for j in range(k + 1):
        t += dt.timedelta(seconds=0 if j == k else rng.randint(5, 900))
        events.append((t, user, steps[j]))
events.sort()
Path("data").mkdir(exist_ok=True)
with open("data/events.jsonl", "w") as fh:
    for t, user, name in events:
        fh.write(json.dumps({"ts": t.strftime("%Y-%m-%dT%H:%M:%SZ"), "user": user, "event": name}) + "\n")
PY
