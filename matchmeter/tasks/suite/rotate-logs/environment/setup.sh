#!/usr/bin/env bash
# Seeds logs/ in logrotate style for 3-4 services: <svc>.log (usually fresh), <svc>.log.N files
# (some modified within the last day, at least one on every seed; most 2-20 days old) and <svc>.log.N.gz archives 21-28 days old
# (at least two per service) or 35-120 days old; one retired service has only old archives.
# Ages are seeded; mtimes are set relative to now, far from the 1-day and 30-day thresholds.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import gzip
import os
import random
import sys
import time
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
now = time.time()
logs = Path("logs")
logs.mkdir()


def put(name, age_days, text, compress=False):
    p = logs / name
    data = text.encode()
    p.write_bytes(gzip.compress(data, mtime=0) if compress else data)
    stamp = now - age_days * 86400
    os.utime(p, (stamp, stamp))


def lines(svc, n):
    return "".join(f"2024-05-{rng.randint(1, 28):02d} {rng.choice(['INFO', 'WARN', 'ERROR'])} {svc} "
                   f"request {rng.randint(1, 10**6)} took {rng.randint(1, 900)}ms\n" for _ in range(n))


names = rng.sample(["api", "worker", "auth", "billing", "search", "mailer", "cron"], 4)
services, retired = names[:rng.randint(2, 3)] + [], names[-1]
stopped = rng.choice(services)
for svc in services:
    put(f"{svc}.log", rng.uniform(3, 9) if svc == stopped else rng.uniform(0.01, 0.3), lines(svc, rng.randint(5, 30)))
    n = 1
    # A fresh rotated log on every seed (the first running service always has one).
    if svc != stopped and (rng.random() < 0.7 or svc == next(x for x in services if x != stopped)):
        put(f"{svc}.log.{n}", rng.uniform(0.3, 0.8), lines(svc, rng.randint(5, 30)))
        n += 1
    for _ in range(rng.randint(1, 3)):
        put(f"{svc}.log.{n}", rng.uniform(2, 20), lines(svc, rng.randint(5, 30)))
        n += 1
    for age in sorted([rng.uniform(21, 25), rng.uniform(25.5, 28)] + [rng.uniform(35, 120) for _ in range(rng.randint(1, 4))]):
        put(f"{svc}.log.{n}.gz", age, lines(svc, rng.randint(5, 30)), compress=True)
        n += 1
for n, age in enumerate(sorted(rng.uniform(40, 200) for _ in range(rng.randint(3, 5))), start=1):
    put(f"{retired}.log.{n}.gz", age, lines(retired, rng.randint(5, 30)), compress=True)
PY
