"""Trap: each reported cohort (2024-01..03, UTC) holds an internal account."""
import datetime as dt
import glob
import json
import sys
from collections import defaultdict

internal = {ln.strip() for ln in open("data/internal_accounts.txt") if ln.strip() and not ln.startswith("#")}
first = defaultdict(lambda: "9999")
for f in glob.glob("data/events/*.jsonl"):
    for line in open(f):
        e = json.loads(line)
        t = dt.datetime.fromisoformat(e["ts"].replace("Z", "+00:00")).astimezone(dt.timezone.utc)
        first[e["user_id"]] = min(first[e["user_id"]], t.strftime("%Y-%m"))
missing = {"2024-01", "2024-02", "2024-03"} - {first[u] for u in internal}
if missing:
    sys.exit(f"no internal account in cohorts {sorted(missing)}")
