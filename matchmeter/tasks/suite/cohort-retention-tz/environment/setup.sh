#!/usr/bin/env bash
# Seeds data/events/part-*.jsonl: app events of users with monthly activity that decays after their
# first event; each timestamp is written in one of several UTC offsets, and many fall within hours of
# a month boundary so local and UTC months differ. data/internal_accounts.txt lists test accounts.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import datetime as dt
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
UTC = dt.timezone.utc
offsets = [dt.timedelta(hours=h) for h in (-8, -5, 0, 0, 1, 9)] + [dt.timedelta(hours=5, minutes=30)]
month_starts = [dt.datetime(2024, m, 1, tzinfo=UTC) for m in range(1, 8)]
keep = [rng.uniform(0.35, 0.6), rng.uniform(0.6, 0.85)]
kinds = ["app_open", "app_open", "view_item", "search", "share", "settings"]


def when(month, after=None):
    lo = after or month_starts[month]
    hi = month_starts[month + 1]
    if rng.random() < 0.25:  # near a month edge, where time zones change the month
        edge = rng.choice([lo + dt.timedelta(hours=1), hi - dt.timedelta(hours=1)])
        t = edge + dt.timedelta(minutes=rng.randint(-600, 600))
        return min(max(t, lo), hi - dt.timedelta(minutes=1))
    return lo + (hi - lo) * rng.random()


events = []
users = [f"user-{rng.randrange(36**5):07d}{i}" for i in range(rng.randint(250, 450))]
internal = rng.sample(users, 6)
for user in users:
    first_month = rng.choices(range(6), [5, 5, 5, 2, 2, 1])[0]
    if user in internal[:3]:  # on every seed each reported cohort holds an internal account
        first_month = internal.index(user)
    first = when(first_month)
    events.append((user, "signup", first))
    active = True
    for m in range(first_month, 6):
        if m > first_month:
            active = rng.random() < (keep[0] if m == first_month + 1 else keep[1]) if active else rng.random() < 0.1
        if active:
            for _ in range(rng.randint(1, 4)):
                events.append((user, rng.choice(kinds), when(m, first if m == first_month else None)))
rng.shuffle(events)
rows = []  # (user, kind, UTC time, the stamp as written in the client's offset)
for user, kind, t in events:
    local = t.astimezone(dt.timezone(rng.choice(offsets)))
    rows.append((user, kind, t, local.isoformat(timespec="seconds").replace("+00:00", rng.choice(["Z", "+00:00"]))))


def cohort_size(month, local):
    first = {}
    for user, _, t, stamp in rows:
        if user not in internal:
            m = stamp[:7] if local else t.strftime("%Y-%m")
            first[user] = min(first.get(user, m), m)
    return sum(m == month for m in first.values())


# On every seed each reported cohort's size differs when months are read in local time: while one does
# not, add a user whose first event, just before the month's end, is written in +09:00 (next month).
for m in range(3):
    label = month_starts[m].strftime("%Y-%m")
    if cohort_size(label, False) == cohort_size(label, True):
        t = month_starts[m + 1] - dt.timedelta(minutes=rng.randint(5, 500))
        stamp = t.astimezone(dt.timezone(dt.timedelta(hours=9))).isoformat(timespec="seconds")
        rows.insert(rng.randrange(len(rows) + 1), (f"user-{rng.randrange(36**5):07d}x{m}", "signup", t, stamp))
Path("data/events").mkdir(parents=True, exist_ok=True)
for k in range(4):
    with open(f"data/events/part-{k:03d}.jsonl", "w") as fh:
        for user, kind, _, stamp in rows[k::4]:
            fh.write(json.dumps({"ts": stamp, "user_id": user, "event": kind}) + "\n")
Path("data/internal_accounts.txt").write_text("# QA and demo accounts, not real users\n" + "\n".join(sorted(internal)) + "\n")
PY
