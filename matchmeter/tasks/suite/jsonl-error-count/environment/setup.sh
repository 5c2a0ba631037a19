#!/usr/bin/env bash
# Seeds logs/: the current events.jsonl plus rotated events.jsonl.1 and a gzipped events.jsonl.2.gz
# (mtime 0), JSON Lines with a seeded set of services, levels and the odd blank line.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import gzip
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
pool = ["auth", "billing", "search", "gateway", "mailer", "reports", "uploads", "scheduler"]
services = rng.sample(pool, rng.randint(4, 6))
quiet = rng.choice(services)  # one service that never errors
msgs = {"info": ["request served", "cache warm", "job done"], "warn": ["slow query", "retrying"],
        "error": ["timeout talking to db", "unhandled exception", "upstream 502"]}
Path("logs").mkdir(exist_ok=True)
day = rng.randint(1, 20)
chunks = []
for part in range(3):
    lines = []
    for i in range(rng.randint(40, 90)):
        svc = rng.choice(services)
        level = rng.choices(["info", "warn", "error"], [6, 2, 0 if svc == quiet else 1.5])[0]
        # Traps on every seed (task.toml): an error in the gzipped log, a ctx.level "error" on a non-error event.
        if i == 0 and part == 2:
            svc, level = rng.choice([s for s in services if s != quiet]), "error"
        if i == 0 and part == 0:
            level = "warn"
        event = {"ts": f"2024-05-{day + 2 - part:02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z",
                 "service": svc, "level": level, "msg": rng.choice(msgs[level])}
        if rng.random() < 0.2 or (i == 0 and part == 0):
            event["ctx"] = {"level": "error" if level != "error" else "debug", "attempt": rng.randint(1, 4)}
        lines.append(json.dumps(event))
        if rng.random() < 0.05:
            lines.append("")
    chunks.append("\n".join(lines) + "\n")
Path("logs/events.jsonl").write_text(chunks[0])
Path("logs/events.jsonl.1").write_text(chunks[1])
Path("logs/events.jsonl.2.gz").write_bytes(gzip.compress(chunks[2].encode(), mtime=0))
PY
