"""Trap: every service is logged in both schemas (old: time/svc/path/status, new: ts/service/route/code)."""
import glob
import gzip
import json
import sys

recs = []
for f in sorted(glob.glob("logs/*.jsonl.gz")):
    for line in gzip.open(f, "rt"):
        try:
            recs.append(json.loads(line))
        except ValueError:
            pass
old = {r["svc"] for r in recs if "time" in r}
new = {r["service"] for r in recs if "ts" in r}
if not recs or old != new:
    sys.exit(f"services not in both schemas: {sorted(old ^ new)}")
