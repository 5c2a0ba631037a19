#!/usr/bin/env bash
# Seeds config/settings.json: seeded app name, port, feature flags and an old motd to replace.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
Path("config").mkdir()
features = {name: rng.random() < 0.5 for name in rng.sample(["search", "billing", "exports", "sso", "beta_ui"], 3)}
settings = {
    "app": {"name": rng.choice(["atlas", "borealis", "cinder", "dune"]), "port": rng.randint(3000, 9000),
            "motd": f"Maintenance window {rng.randint(1, 28)}.{rng.randint(1, 12)}"},
    "features": features,
    "limits": {"max_users": rng.randint(10, 500), "timeout_s": rng.choice([15, 30, 60])},
}
Path("config/settings.json").write_text(json.dumps(settings, indent=4) + "\n")
Path("config/defaults.json").write_text(json.dumps({"app": {"port": 8080}}, indent=4) + "\n")
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
