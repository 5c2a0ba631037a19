"""Trap: for each later step, some user logged it only before their earlier steps (so it does not count)."""
import json
import sys
from collections import defaultdict

STEPS = ["view_product", "add_to_cart", "begin_checkout", "purchase"]
seq = defaultdict(list)
for line in open("data/events.jsonl"):
    e = json.loads(line)
    if e["event"] in STEPS:
        seq[e["user"]].append((e["ts"], STEPS.index(e["event"])))
found = set()
for events in seq.values():
    reached = 0
    for _, k in sorted(events):
        if k == reached:
            reached += 1
    found |= {k for _, k in events if k >= reached}
missing = [STEPS[k] for k in (1, 2, 3) if k not in found]
if missing:
    sys.exit(f"no user whose {missing} step was logged only out of order")
