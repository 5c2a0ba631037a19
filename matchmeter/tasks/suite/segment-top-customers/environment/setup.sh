#!/usr/bin/env bash
# Seeds data/customers.csv (id, name, segment) and data/orders.csv whose customer ids are sometimes
# typed in lower case or with stray spaces; orders have statuses and some belong to unknown
# customers. Revenue gaps keep the top-3 per segment free of ties.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
segments = rng.sample(["enterprise", "smb", "consumer", "public-sector", "education"], rng.randint(3, 4))
first = ["Acme", "Birch", "Cobalt", "Delta", "Ember", "Fjord", "Granite", "Harbor", "Iris", "Juniper", "Kestrel",
         "Lumen", "Maple", "Nimbus", "Orchid", "Pioneer", "Quartz", "Raven", "Summit", "Tidal"]
last = ["Labs", "Foods", "Works", "Systems", "Health", "Logistics", "Media", "Energy"]
customers = []
for i in range(rng.randint(40, 70)):
    customers.append([f"C{rng.randint(1000, 9999)}{i:02d}", f"{rng.choice(first)} {rng.choice(last)}", rng.choice(segments)])
orders = []
for cid, _, _ in customers:
    for _ in range(rng.randint(1, 9)):
        status = rng.choices(["completed", "cancelled", "refunded", "pending"], [14, 2, 1, 1])[0]
        shown = rng.choice([cid, cid, cid, cid.lower(), f" {cid}", f"{cid} "])
        orders.append([shown, status, round(rng.uniform(15, 2500), 2)])
# On every seed each segment has a customer whose big orders never completed, and one whose big completed
# orders all carry a mistyped id: either would move the segment's top 3 if its rule were skipped.
for k, seg in enumerate(segments):
    for kind in ("open", "typed"):
        cid = f"C{rng.randint(1000, 9999)}{len(customers):02d}"
        customers.insert(rng.randrange(len(customers) + 1), [cid, f"{rng.choice(first)} {rng.choice(last)}", seg])
        for j in range(9 if kind == "open" else 6):
            if kind == "open":  # 8 x 2300+ unfinished: first in its segment when every status counts
                status = "completed" if j == 0 else rng.choice(["cancelled", "refunded", "pending"])
                orders.append([cid, status, round(rng.uniform(15, 400) if j == 0 else rng.uniform(2300, 2500), 2)])
            else:
                orders.append([rng.choice([cid.lower(), f" {cid}", f"{cid} "]), "completed", round(rng.uniform(1800, 2500), 2)])
for _ in range(rng.randint(3, 8)):
    orders.append([f"C{rng.randint(1000, 9999)}99", "completed", round(rng.uniform(15, 2500), 2)])
rng.shuffle(orders)
Path("data").mkdir(exist_ok=True)
with open("data/customers.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["customer_id", "name", "segment"])
    w.writerows(customers)
with open("data/orders.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["order_id", "customer_id", "status", "amount"])
    for i, (cid, status, amount) in enumerate(orders):
        w.writerow([f"O{80000 + i}", cid, status, f"{amount:.2f}"])
PY
