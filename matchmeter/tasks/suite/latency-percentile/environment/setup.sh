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
# On every seed each file starts with a 2xx /apiary/ request (not under /api/), a 201 and a 5xx /apiary/ one.
forced = [("/apiary/info", 200), ("/api/orders", 201), ("/apiary/info", 502)]
minute, files = 0, []
for part, name in enumerate(["requests.log.2.gz", "requests.log.1", "requests.log"]):
    lines = ["timestamp,method,path,status,latency_ms"]
    for k in range(rng.randint(200, 400)):
        minute += rng.randint(0, 2)
        path = rng.choice(paths).format(rng.randint(1, 999))
        status = rng.choice(statuses)
        if k < len(forced):
            path, status = forced[k]
        slow = rng.random() < 0.05
        latency = rng.uniform(300, 2500) if slow else rng.lognormvariate(3.5, 0.6)
        lines.append(f"2024-06-{1 + part:02d}T{minute // 60 % 24:02d}:{minute % 60:02d}:{rng.randint(0, 59):02d}Z,"
                     f"{rng.choice(['GET', 'GET', 'POST'])},{path},{status},{latency:.1f}")
    files.append((name, lines))


def p95s():
    """Linear (numpy's default), nearest-rank and exclusive-method p95 of the 2xx /api/ latencies."""
    ok = sorted(float(f[4]) for _, lines in files for f in (ln.split(",") for ln in lines[1:])
                if f[2].startswith("/api/") and f[3].startswith("2"))
    n = len(ok)
    at = lambda pos: ok[int(pos)] + (ok[min(int(pos) + 1, n - 1)] - ok[int(pos)]) * (pos - int(pos))  # noqa: E731
    return at(0.95 * (n - 1)), ok[-(-95 * n // 100) - 1], at(min(max(0.95 * (n + 1) - 1, 0), n - 1))


# The interpolation must matter on every seed: add 2xx API requests to the newest file until it does.
while min(abs(p95s()[0] - other) for other in p95s()[1:]) <= 0.5:
    minute += 1
    files[-1][1].append(f"2024-06-03T{minute // 60 % 24:02d}:{minute % 60:02d}:{rng.randint(0, 59):02d}Z,GET,"
                        f"/api/search,200,{rng.lognormvariate(3.5, 0.6):.1f}")
for name, lines in files:
    data = ("\n".join(lines) + "\n").encode()
    if name.endswith(".gz"):
        Path("logs", name).write_bytes(gzip.compress(data, mtime=0))
    else:
        Path("logs", name).write_bytes(data)
PY
