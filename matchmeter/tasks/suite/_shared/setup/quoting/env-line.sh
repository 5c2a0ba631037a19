#!/usr/bin/env bash
# Seeds .env (seeded keys in seeded order, an old API_TOKEN) and the loader's note in README.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
pairs = [("APP_ENV", rng.choice(["staging", "production"])), ("DB_HOST", f"db{rng.randint(1, 9)}.internal"),
         ("DB_PORT", str(rng.choice([5432, 5433, 6432]))), ("LOG_LEVEL", rng.choice(["info", "debug", "warn"])),
         ("API_TOKEN", f"old_{rng.getrandbits(40):010x}"), ("WORKERS", str(rng.randint(2, 12)))]
rng.shuffle(pairs)
Path(".env").write_text("".join(f"{k}={v}\n" for k, v in pairs))
Path("README").write_text("The service reads .env with a literal loader: KEY=VALUE, one per line.\n")
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
