#!/usr/bin/env bash
# Seeds service.conf (service name and a port in 20000-39999, after a comment naming another port) and
# inventory.json (seeded SKUs; two entries with other fields than sku/name/qty/price).
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
name = f"{rng.choice(['north', 'harbor', 'maple', 'delta', 'summit'])}-{rng.choice(['depot', 'store', 'stock'])}"
port = rng.randint(20000, 39999)
staging = rng.choice([p for p in range(20000, 40000, 1111) if p != port])
# every seed: a comment that mentions another port ahead of the real setting
Path("service.conf").write_text(f"# inventory service settings\n# (staging ran on port {staging} until the move; not this one)\n"
                                f"[service]\nname = {name}\nport = {port}\n")
items = []
for i in range(rng.randint(5, 12)):
    sku = f"{rng.choice('ABCDEFGH')}{rng.choice('KLMNPQ')}-{rng.randint(100, 999)}-{i}"
    items.append({"sku": sku, "name": rng.choice(["bolt", "nut", "washer", "gear", "spring", "hinge"]),
                  "qty": rng.randint(0, 500), "price": round(rng.uniform(0.1, 40), 2)})
# every seed: two entries that are not the usual four fields (extra nested fields, a null, one without a price),
# which the service must return as they appear in the file
odd = rng.sample(range(len(items)), 2)
items[odd[0]].update(tags=rng.sample(["zinc", "metric", "m8", "bulk", "spare"], 2), location=None,
                     supplier={"name": rng.choice(["Acme", "Boltworks", "Nordfix"]), "lead_days": rng.randint(2, 30)})
del items[odd[1]]["price"]
items[odd[1]]["discontinued"] = True
Path("data").mkdir(exist_ok=True)
Path("data/inventory.json").write_text(json.dumps(items, indent=2) + "\n")
PY
