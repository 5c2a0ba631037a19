#!/usr/bin/env bash
# Seeds data/orders.json: nested orders (customer with optional address/country, item lists that may
# be empty), names with commas and quotes, prices with up to two decimals. Every seed plants the traps
# task.toml lists, each on an order with items: a name with a comma, a name with double quotes, a
# customer without an address and one whose address has no country; and order ids out of export order.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
people = ["Ada Lovelace", "Grace Hopper", 'Tom "TJ" Jones', "Smith, Anna", "Li Wei", "Zoë Martin",
          "O'Brien, Sean", "Priya Nair", "Kwame Mensah", "Ana Ruiz"]
countries = ["DE", "FR", "US", "JP", "BR", "KE", None]
skus = [f"{p}-{n}" for p in ("MUG", "TEE", "CAP", "BAG", "PEN") for n in (1, 2, 3)]
orders, oid = [], rng.randint(1000, 5000)
for n in range(rng.randint(8, 14)):
    oid += rng.randint(1, 3)
    name = rng.choice(people)
    customer = {"name": name, "email": name.split(",")[0].lower().replace(" ", ".").replace('"', "").replace("'", "") + "@example.com"}
    country = rng.choice(countries)
    if country is not None or rng.random() < 0.5:
        customer["address"] = {"city": rng.choice(["Lyon", "Osaka", "Nairobi", "Austin", "Recife"])}
        if country is not None:
            customer["address"]["country"] = country
    items = [{"sku": rng.choice(skus), "qty": rng.randint(1, 5), "price": round(rng.randint(199, 4999) / 100, 2)}
             for _ in range(rng.choice([0, 1, 1, 2, 3, 4]))]
    orders.append({"id": oid, "status": rng.choice(["paid", "shipped", "cancelled"]),
                   "customer": customer, "items": items})
def plant(order, customer):
    order["customer"] = customer
    if not order["items"]:
        order["items"] = [{"sku": rng.choice(skus), "qty": rng.randint(1, 5), "price": round(rng.randint(199, 4999) / 100, 2)}]


def email(name):
    return name.split(",")[0].lower().replace(" ", ".").replace('"', "").replace("'", "") + "@example.com"


comma, quoted, homeless, countryless = rng.sample(orders, 4)
for order, names in ((comma, ["Smith, Anna", "O'Brien, Sean"]), (quoted, ['Tom "TJ" Jones'])):
    name = rng.choice(names)
    plant(order, {"name": name, "email": email(name), "address": {"city": "Lyon", "country": rng.choice(countries[:-1])}})
for order, address in ((homeless, None), (countryless, {"city": rng.choice(["Lyon", "Osaka", "Recife"])})):
    name = rng.choice([p for p in people if "," not in p and '"' not in p])
    plant(order, {"name": name, "email": email(name)} | ({"address": address} if address else {}))
rng.shuffle(orders)
if [o["id"] for o in orders] == sorted(o["id"] for o in orders):
    orders[0], orders[1] = orders[1], orders[0]
Path("data").mkdir(exist_ok=True)
Path("data/orders.json").write_text(json.dumps({"exported": "2024-06-30", "orders": orders}, indent=2, ensure_ascii=False) + "\n")
PY
