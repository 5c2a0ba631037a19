"""checkout-funnel verifier: a user reaches step k when events of steps 1..k exist at non-decreasing
times (greedy earliest matching decides existence); counts exact, overall conversion within 1e-4."""

import json
from collections import defaultdict

from verifylib import close, grade, pristine, read

STEPS = ["view_product", "add_to_cart", "begin_checkout", "purchase"]
by_user = defaultdict(list)
with open(pristine() / "data" / "events.jsonl") as fh:
    for line in fh:
        e = json.loads(line)
        by_user[e["user"]].append((e["ts"], e["event"]))
reached = [0] * 4
for events in by_user.values():
    k = 0
    # Ties in time are taken in funnel order ("at the same time or later"), never by event name.
    for _, name in sorted(events, key=lambda e: (e[0], STEPS.index(e[1]) if e[1] in STEPS else 4)):
        if k < 4 and name == STEPS[k]:
            k += 1
    for j in range(k):
        reached[j] += 1


def funnel():
    return json.loads(read("answer/funnel.json"))


grade({"steps": 0.7, "overall_conversion": 0.3},
      {"steps": lambda: sum(int(funnel()[s]) == reached[i] for i, s in enumerate(STEPS)) / 4,
       "overall_conversion": lambda: close(funnel()["overall_conversion"], reached[3] / reached[0], 1e-4)})
