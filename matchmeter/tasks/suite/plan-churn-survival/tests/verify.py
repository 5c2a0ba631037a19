"""plan-churn-survival verifier: Kaplan-Meier per plan in whole days, right-censored at the extract
date; only effective cancellations end a subscription. Accepted readings: censorings at a tie time
counted at risk (standard) or not, median as first t with S<=0.5 or S<0.5 (+-1 day), churn within
90 days as 1-S(90) or 1-S(89), within 1e-3."""

import csv
import datetime as dt
import json
from collections import defaultdict

from verifylib import close, grade, pristine, read

root = pristine() / "data"
AS_OF = dt.date(2024, 10, 1)
ended = {}
with open(root / "cancellations.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        if row["status"] == "effective":
            ended[row["subscription_id"]] = dt.date.fromisoformat(row["cancelled_on"])
obs = defaultdict(list)
with open(root / "subscriptions.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        start = dt.date.fromisoformat(row["started_on"])
        sid = row["subscription_id"]
        obs[row["plan"]].append(((ended.get(sid, AS_OF) - start).days, sid in ended))


def km(data, censor_first):
    """[(t, S(t))] at each event time."""
    curve, s = [], 1.0
    at_risk = len(data)
    for t in sorted({t for t, _ in data}):
        d = sum(1 for u, e in data if u == t and e)
        c = sum(1 for u, e in data if u == t and not e)
        n = at_risk - (c if censor_first else 0)
        if d:
            s *= 1 - d / n
            curve.append((t, s))
        at_risk -= d + c
    return curve


def surv(curve, t):
    return min([s for u, s in curve if u <= t], default=1.0)


accept = {}
for plan, data in obs.items():
    medians, churn = set(), set()
    for censor_first in (False, True):
        curve = km(data, censor_first)
        for strict in (False, True):
            hit = [t for t, s in curve if (s < 0.5 if strict else s <= 0.5 + 1e-12)]
            medians.add(hit[0] if hit else None)
        churn |= {1 - surv(curve, 90), 1 - surv(curve, 89)}
    accept[plan] = (medians, churn)


def answer():
    return json.loads(read("answer/churn.json"))


def median_ok(got, options):
    if got is None or got == "null":
        return None in options
    return any(o is not None and abs(float(got) - o) <= 1 for o in options)


def never_halves_ok(a):
    """The plan whose curve never reaches 50% must say null: both per-plan subgoals pay only then (reporting
    a number there and the rest right kept 0.83)."""
    return all(median_ok(a.get(p, {}).get("median_days", "missing"), accept[p][0]) for p in accept if None in accept[p][0])


def medians():
    """Gated on the null plan, then the share of the plans that do halve (a null alone is not a median)."""
    a = answer()
    halving = [p for p in accept if None not in accept[p][0]]
    if not never_halves_ok(a):
        return 0.0
    if not halving:
        return 1.0
    return sum(median_ok(a.get(p, {}).get("median_days", "missing"), accept[p][0]) for p in halving) / len(halving)


def churn90():
    a = answer()
    if not never_halves_ok(a):
        return 0.0
    return sum(any(close(a.get(p, {}).get("churn_90d"), c, 1e-3) for c in accept[p][1]) for p in accept) / len(accept)


grade({"plans": 0.1, "median_days": 0.5, "churn_90d": 0.4},
      {"plans": lambda: set(answer()) == set(accept), "median_days": medians, "churn_90d": churn90})
