#!/usr/bin/env bash
# Seeds logs/gateway-a.jsonl.gz (old log schema: ISO "time", "svc", "status") and
# logs/gateway-b.jsonl.gz (new schema: epoch-ms "ts", "service", "code") for one week of traffic of
# 3-4 services, with health checks (some failing), a distinct one-hour incident per service, and a
# truncated last line in each file (the gateways were killed). gzip mtime 0 for fixed bytes.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import datetime as dt
import gzip
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
services = rng.sample(["checkout", "search", "catalog", "accounts", "payments", "reviews"], rng.randint(3, 4))
start = dt.datetime(2024, 8, 5, tzinfo=dt.timezone.utc)
hours = 7 * 24
incident = dict(zip(services, rng.sample(range(hours), len(services))))
severity = {s: rng.uniform(0.25, 0.6) for s in services}
lines = {"a": [], "b": []}
for h in range(hours):
    for svc in services:
        bad_rate = severity[svc] if h == incident[svc] else rng.choice([0.0, 0.001, 0.002, 0.004])
        for _ in range(rng.randint(25, 45)):
            t = start + dt.timedelta(hours=h, seconds=rng.uniform(0, 3599.999))
            health = rng.random() < 0.15
            route = "/healthz" if health else rng.choice([f"/{svc}", f"/{svc}/{rng.randint(1, 500)}", f"/{svc}/list"])
            if rng.random() < bad_rate or (health and rng.random() < 0.01):
                status = rng.choice([500, 502, 503, 504])
            else:
                status = rng.choice([200] * 20 + [201, 204, 304, 400, 404, 429])
            ms = round(rng.lognormvariate(4, 0.7), 1)
            node = rng.choice("ab")
            if node == "a":
                rec = {"time": t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z", "svc": svc,
                       "path": route, "status": status, "ms": ms}
            else:
                rec = {"ts": int(t.timestamp() * 1000), "service": svc, "route": route, "code": status,
                       "latency": ms / 1000}
            lines[node].append((t, json.dumps(rec)))
Path("logs").mkdir(exist_ok=True)
for node, recs in lines.items():
    recs.sort()
    body = "\n".join(r for _, r in recs) + "\n" + recs[-1][1][: rng.randint(10, 30)] + "\n"
    Path(f"logs/gateway-{node}.jsonl.gz").write_bytes(gzip.compress(body.encode(), mtime=0))
PY
