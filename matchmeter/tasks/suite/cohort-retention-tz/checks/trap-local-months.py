"""Trap: every reported cohort (2024-01..03) has another size when months are read in local time."""
import datetime as dt
import glob
import json
import sys
from collections import defaultdict

internal = {ln.strip() for ln in open("data/internal_accounts.txt") if ln.strip() and not ln.startswith("#")}
utc, local = defaultdict(set), defaultdict(set)
for f in glob.glob("data/events/*.jsonl"):
    for line in open(f):
        e = json.loads(line)
        t = dt.datetime.fromisoformat(e["ts"].replace("Z", "+00:00")).astimezone(dt.timezone.utc)
        utc[e["user_id"]].add(t.strftime("%Y-%m"))
        local[e["user_id"]].add(e["ts"][:7])
same = [c for c in ("2024-01", "2024-02", "2024-03")
        if sum(min(utc[u]) == c for u in utc if u not in internal) == sum(min(local[u]) == c for u in local if u not in internal)]
if same:
    sys.exit(f"cohorts {same} have the same size in local time as in UTC")
