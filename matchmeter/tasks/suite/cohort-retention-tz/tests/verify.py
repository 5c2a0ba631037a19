"""cohort-retention-tz verifier: UTC months of offset-aware timestamps, internal accounts excluded;
sizes exact, each m1..m3 cell within 6e-4 (3-decimal rounding)."""

import csv
import datetime as dt
import json
from collections import defaultdict

from verifylib import grade, pristine, read

root = pristine() / "data"
internal = {ln.strip() for ln in (root / "internal_accounts.txt").read_text().splitlines()
            if ln.strip() and not ln.startswith("#")}
months = defaultdict(set)
for f in sorted((root / "events").glob("*.jsonl")):
    for line in f.read_text().splitlines():
        e = json.loads(line)
        if e["user_id"] in internal:
            continue
        t = dt.datetime.fromisoformat(e["ts"].replace("Z", "+00:00")).astimezone(dt.timezone.utc)
        months[e["user_id"]].add(t.year * 12 + t.month - 1)
cohorts = defaultdict(list)
for user, ms in months.items():
    cohorts[min(ms)].append(ms)
expected = {}
for m in range(2024 * 12, 2024 * 12 + 3):
    members = cohorts[m]
    label = f"{m // 12}-{m % 12 + 1:02d}"
    expected[label] = (len(members), [sum(m + k in ms for ms in members) / len(members) for k in range(4)])


def table():
    return {r["cohort"].strip(): r for r in csv.DictReader((read("answer/retention.csv") or "").splitlines())}


def sizes():
    got = table()
    return sum(int(got[c]["users"]) == n for c, (n, _) in expected.items() if c in got) / 3


def cells():
    got = table()
    hits = 0
    for c, (_, shares) in expected.items():
        for k in range(1, 4):
            try:
                hits += abs(float(got[c][f"m{k}"]) - shares[k]) <= 6e-4
            except (KeyError, TypeError, ValueError):
                pass
    return hits / 9


grade({"cohorts": 0.1, "sizes": 0.3, "retention": 0.6},
      {"cohorts": lambda: sorted(table()) == sorted(expected), "sizes": sizes, "retention": cells})
