#!/usr/bin/env bash
# Seeds logs/: three rotated request logs (CSV with a header each), the oldest gzip-compressed
# (mtime 0 in the gzip header so the bytes depend only on the seed), plus a non-API noise mix.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import gzip
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
paths = ["/api/users", "/api/orders", "/api/orders/{}", "/api/search", "/static/app.js", "/health", "/apiary/info"]
statuses = [200] * 30 + [201] * 4 + [204] * 2 + [301, 304, 400, 404, 404, 500, 502, 503]
Path("logs").mkdir(exist_ok=True)
minute = 0
for part, name in enumerate(["requests.log.2.gz", "requests.log.1", "requests.log"]):
    lines = ["timestamp,method,path,status,latency_ms"]
    for _ in range(rng.randint(200, 400)):
        minute += rng.randint(0, 2)
        path = rng.choice(paths).format(rng.randint(1, 999))
        status = rng.choice(statuses)
        slow = rng.random() < 0.05
        latency = rng.uniform(300, 2500) if slow else rng.lognormvariate(3.5, 0.6)
        lines.append(f"2024-06-{1 + part:02d}T{minute // 60 % 24:02d}:{minute % 60:02d}:{rng.randint(0, 59):02d}Z,"
                     f"{rng.choice(['GET', 'GET', 'POST'])},{path},{status},{latency:.1f}")
    data = ("\n".join(lines) + "\n").encode()
    if name.endswith(".gz"):
        Path("logs", name).write_bytes(gzip.compress(data, mtime=0))
    else:
        Path("logs", name).write_bytes(data)
PY
