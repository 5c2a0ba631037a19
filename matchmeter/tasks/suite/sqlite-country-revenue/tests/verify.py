"""sqlite-country-revenue verifier: per-country paid orders, revenue and top customer, sorted by revenue."""

import csv
import io
import re
import sqlite3

from verifylib import all_or_nothing, grade, pristine, read

db = sqlite3.connect(pristine() / "shop.db")
per_customer = db.execute("""
    SELECT c.country, c.name, c.id, COUNT(DISTINCT o.id), SUM(i.qty * i.unit_price)
    FROM customers c JOIN orders o ON o.customer_id = c.id JOIN order_items i ON i.order_id = o.id
    WHERE o.status = 'paid' GROUP BY c.id""").fetchall()
countries = {}
for country, name, _cid, n, rev in per_customer:
    entry = countries.setdefault(country, {"orders": 0, "revenue": 0.0, "best": {}})
    entry["orders"] += n
    entry["revenue"] += rev
    entry["best"][name] = entry["best"].get(name, 0) + rev
for entry in countries.values():
    top = max(entry["best"].values())
    entry["top"] = {n for n, r in entry["best"].items() if abs(r - top) < 0.005}
ranking = sorted(countries, key=lambda c: -countries[c]["revenue"])


def rows():
    parsed = list(csv.reader(io.StringIO(read("reports/country_revenue.csv"))))
    assert parsed[0] == ["country", "orders", "revenue", "top_customer"]
    # A country without paid orders may be listed with 0 orders: both readings are fine.
    return [r for r in parsed[1:] if r and not (r[0] not in countries and r[1].strip() == "0")]


def counts():
    got = {r[0]: r for r in rows()}
    return sum(c in got and got[c][1] == str(countries[c]["orders"]) for c in countries) / max(len(countries), len(got))


def revenue():
    got = {r[0]: r for r in rows()}
    # "rounded to 2 decimals": 1234.5 is fine, a float sum printed as 1234.5000000000002 is not (0 if any is).
    if not all(re.fullmatch(r"\d+(\.\d{1,2})?", r[2].strip()) for r in got.values()):
        return 0.0
    return sum(c in got and abs(float(got[c][2]) - countries[c]["revenue"]) <= 0.011 for c in countries) / max(len(countries), len(got))


def top():
    got = {r[0]: r for r in rows()}
    return sum(c in got and got[c][3] in countries[c]["top"] for c in countries) / len(countries)


def order():
    return [r[0] for r in rows()] == ranking




grade({"paid_orders": 0.2, "revenue": 0.35, "top_customer": 0.3, "sorted": 0.15},
      all_or_nothing({"paid_orders": counts, "revenue": revenue, "top_customer": top, "sorted": order}))
