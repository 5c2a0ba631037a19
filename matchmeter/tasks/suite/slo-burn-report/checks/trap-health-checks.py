"""Trap: every service has /healthz requests in the logs, some of them failing."""
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
svcs = {r.get("svc", r.get("service")) for r in recs}
health = [r for r in recs if r.get("path", r.get("route")) == "/healthz"]
bad = sorted(svcs - {r.get("svc", r.get("service")) for r in health})
if not recs or bad or not any(r.get("status", r.get("code")) >= 500 for r in health):
    sys.exit(f"no health checks for {bad or 'any service'} or none failing")
