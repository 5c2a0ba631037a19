"""Trap: in each arm some user purchased only before being assigned (not a conversion)."""
import csv
import sys
from collections import defaultdict

at = {r["user_id"]: (r["variant"], r["assigned_at"]) for r in csv.DictReader(open("data/assignments.csv", newline=""))}
buys = defaultdict(list)
for r in csv.DictReader(open("data/events.csv", newline="")):
    if r["event"] == "purchase" and r["user_id"] in at:
        buys[r["user_id"]].append(r["ts"])
arms = {at[u][0] for u, ts in buys.items() if max(ts) <= at[u][1]}
missing = {"control", "treatment"} - arms
if missing:
    sys.exit(f"no user who purchased only before assignment in {sorted(missing)}")
