"""Trap: every segment's top 3 changes when every order status counts."""
import csv
import sys
from collections import defaultdict

seg = {r["customer_id"]: r["segment"] for r in csv.DictReader(open("data/customers.csv", newline=""))}
orders = list(csv.DictReader(open("data/orders.csv", newline="")))


def tops(all_statuses, exact):
    rev = defaultdict(float)
    for o in orders:
        c = o["customer_id"] if exact else o["customer_id"].strip().upper()
        if (all_statuses or o["status"] == "completed") and c in seg:
            rev[c] += float(o["amount"])
    return {s: sorted((c for c in rev if seg[c] == s), key=lambda c: -rev[c])[:3] for s in set(seg.values())}


right = tops(False, False)
wrong = tops(True, False)
bad = sorted(s for s in right if right[s] == wrong.get(s))
if bad:
    sys.exit(f"top 3 unchanged in {bad}")
