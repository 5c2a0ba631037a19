"""Trap: for each later step, some user reaches it only because it may share the previous step's second."""
import json
import sys
from collections import defaultdict

STEPS = ["view_product", "add_to_cart", "begin_checkout", "purchase"]
seq = defaultdict(list)
for line in open("data/events.jsonl"):
    e = json.loads(line)
    if e["event"] in STEPS:
        seq[e["user"]].append((e["ts"], STEPS.index(e["event"])))


def reached(events, strict):
    k, last = 0, ""
    for ts, step in sorted(events):
        if k < 4 and step == k and (ts > last or not strict):
            k, last = k + 1, ts
    return k


found = set()
for events in seq.values():
    found |= set(range(reached(events, True), reached(events, False)))
missing = [STEPS[k] for k in (1, 2, 3) if k not in found]
if missing:
    sys.exit(f"no user who reaches {missing} only at the same second as the step before")
