#!/usr/bin/env bash
# Seeds config/app.json (nested settings; the deprecated legacy_mode key in a seeded set of places)
# and config/defaults.json, which must stay untouched.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
app = rng.choice(["atlas", "beacon", "cobalt", "drift", "ember"])
cfg = {
    "name": app,
    "version": f"{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
    "server": {"host": "0.0.0.0", "port": rng.randint(3000, 9000), "tls": rng.random() < 0.5},
    "database": {"url": f"postgres://db-{rng.randint(1, 9)}.internal:5432/{app}",
                 "pool_size": rng.randint(3, 25), "timeout_ms": rng.choice([500, 1000, 2500])},
    "features": {"beta_search": False, "dark_mode": rng.random() < 0.5,
                 "exports": {"csv": True, "pdf": rng.random() < 0.5}},
    "workers": [{"queue": q, "concurrency": rng.randint(1, 8)} for q in rng.sample(["mail", "pdf", "sync", "index"], 3)],
}
spots = [cfg, cfg["server"], cfg["database"], cfg["features"]["exports"], cfg["workers"][0], cfg["workers"][2]]
for spot in rng.sample(spots, rng.randint(2, 4)):
    spot["legacy_mode"] = rng.random() < 0.5
# The trap on every seed (task.toml): legacy_mode deeper than one level or inside the workers list too.
rng.choice(spots[3:]).setdefault("legacy_mode", rng.random() < 0.5)
Path("config").mkdir(exist_ok=True)
Path("config/app.json").write_text(json.dumps(cfg, indent=2) + "\n")
Path("config/defaults.json").write_text(json.dumps({"server": {"port": 8080}, "legacy_mode": False}, indent=2) + "\n")
PY
