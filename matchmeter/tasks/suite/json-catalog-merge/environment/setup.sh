#!/usr/bin/env bash
# Seeds catalog/base.json (products, some with a field the merged catalog leaves out) and catalog/updates.json
# (partial changes with stock deltas and extra tags, discontinued markers, brand-new products, and one sku
# updated twice). Every seed plants the traps task.toml lists (see the comments below).
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
kinds = ["lamp", "desk", "chair", "shelf", "rug", "stool", "mirror", "clock", "vase", "bench", "sofa", "bed"]
tags = ["oak", "steel", "sale", "new", "outdoor", "kids", "eco", "premium"]
skus = rng.sample(range(100, 999), 16)
base = []
for sku, kind in zip(skus[:rng.randint(8, 11)], rng.sample(kinds, 11)):
    base.append({"sku": f"HX-{sku}", "name": f"{kind.title()} {rng.choice(['Nord', 'Lumo', 'Vera', 'Kip'])}",
                 "price": round(rng.uniform(9, 400), 2), "stock": rng.randint(0, 60), "tags": rng.sample(tags, rng.randint(0, 3))})
changes = []
for p in rng.sample(base, rng.randint(4, 6)):
    ch = {"sku": p["sku"]}
    if rng.random() < 0.6:
        ch["price"] = round(p["price"] * rng.choice([0.8, 0.9, 1.1, 1.25]), 2)
    if rng.random() < 0.6:
        ch["stock_delta"] = rng.randint(-p["stock"], 30)
    if rng.random() < 0.5:
        ch["tags"] = rng.sample(tags, rng.randint(1, 2))
    if rng.random() < 0.2:
        ch["name"] = p["name"] + " II"
    if len(ch) == 1:
        ch["stock_delta"] = rng.randint(1, 9)
    changes.append(ch)
rest = [p for p in base if p["sku"] not in {c["sku"] for c in changes}]
for p in rng.sample(rest, min(len(rest), rng.randint(1, 2))):
    changes.append({"sku": p["sku"], "discontinued": True})
again = rng.choice(changes[:4])
again.setdefault("stock_delta", rng.randint(1, 9))  # folding the two changes into one would lose this delta
changes.append({"sku": again["sku"], "stock_delta": rng.randint(1, 12), "price": round(rng.uniform(9, 400), 2)})
for sku in skus[12:12 + rng.randint(1, 3)]:
    changes.append({"sku": f"HX-{sku}", "name": f"{rng.choice(kinds).title()} Nova", "price": round(rng.uniform(9, 400), 2),
                    "stock": rng.randint(1, 40), "tags": ["new"]})
# Tags added, not replaced, and without duplicates: a changed product with two tags gets one it has and one it lacks.
tagged = rng.choice([c for c in changes[:4] if c is not again] or changes[:1])
product = next(p for p in base if p["sku"] == tagged["sku"])
if len(product["tags"]) < 2:
    product["tags"] = rng.sample(tags, 2)
tagged["tags"] = [rng.choice(product["tags"]), rng.choice([t for t in tags if t not in product["tags"]])]
# Fields the merged catalog leaves out ("exactly the fields"), on products that stay.
gone = {c["sku"] for c in changes if c.get("discontinued")}
for p in rng.sample([p for p in base if p["sku"] not in gone], rng.randint(1, 3)):
    p["warehouse"] = rng.choice(["W1", "W2", "Leeds", "Porto"])
# Never already in sku order: the surviving products of base.json are out of order.
if [p["sku"] for p in base if p["sku"] not in gone] == sorted(p["sku"] for p in base if p["sku"] not in gone):
    base.reverse()
Path("catalog").mkdir(exist_ok=True)
Path("catalog/base.json").write_text(json.dumps(base, indent=2) + "\n")
Path("catalog/updates.json").write_text(json.dumps({"generated": "2024-07-01", "changes": changes}, indent=2) + "\n")
PY
