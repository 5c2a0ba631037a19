#!/usr/bin/env bash
# Seeds service.conf (service name and a port in 20000-39999) and inventory.json (seeded SKUs).
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
name = f"{rng.choice(['north', 'harbor', 'maple', 'delta', 'summit'])}-{rng.choice(['depot', 'store', 'stock'])}"
port = rng.randint(20000, 39999)
Path("service.conf").write_text(f"# inventory service settings\n[service]\nname = {name}\nport = {port}\n")
items = []
for i in range(rng.randint(5, 12)):
    sku = f"{rng.choice('ABCDEFGH')}{rng.choice('KLMNPQ')}-{rng.randint(100, 999)}-{i}"
    items.append({"sku": sku, "name": rng.choice(["bolt", "nut", "washer", "gear", "spring", "hinge"]),
                  "qty": rng.randint(0, 500), "price": round(rng.uniform(0.1, 40), 2)})
Path("data").mkdir(exist_ok=True)
Path("data/inventory.json").write_text(json.dumps(items, indent=2) + "\n")
PY
