#!/usr/bin/env bash
# Seeds data/rates.csv (USD value of one unit of each currency, business days only, a few holidays
# missing) and data/orders.csv (orders on any day, in USD or a foreign currency), Jan-Apr 2024.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import datetime as dt
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
base = {"EUR": 1.09, "GBP": 1.27, "JPY": 0.0068, "CHF": 1.13, "SEK": 0.096}
currencies = sorted(rng.sample(sorted(base), 3))
holidays = {dt.date(2024, 1, 1), dt.date(2024, 3, 29), dt.date(2024, 4, 1)} | {
    dt.date(2024, rng.randint(1, 4), rng.randint(2, 27)) for _ in range(2)}
level = {c: base[c] * rng.uniform(0.95, 1.05) for c in currencies}
rates = []
day = dt.date(2023, 12, 27)
while day <= dt.date(2024, 5, 6):
    if day.weekday() < 5 and day not in holidays:
        for c in currencies:
            level[c] *= 1 + rng.gauss(0, 0.006)
            rates.append([day.isoformat(), c, f"{level[c]:.6f}"])
    day += dt.timedelta(days=1)
orders = []
for i in range(rng.randint(250, 450)):
    date = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 120))
    cur = rng.choice(["USD", "USD"] + currencies)
    if i < 8:  # on every seed each month has a foreign order on a Saturday (no rate) and one in USD
        date = dt.date(2024, i % 4 + 1, 1) + dt.timedelta(days=(5 - dt.date(2024, i % 4 + 1, 1).weekday()) % 7)
        cur = currencies[i % 3] if i < 4 else "USD"
    amount = rng.uniform(20, 900) / (level[cur] if cur != "USD" else 1)
    orders.append([f"ORD-{30000 + i}", date.isoformat(), cur, f"{amount:.2f}" if cur != "JPY" else f"{amount:.0f}"])
orders.sort(key=lambda o: o[1])
Path("data").mkdir(exist_ok=True)
for name, header, rows in (("rates.csv", ["date", "currency", "usd_per_unit"], rates),
                           ("orders.csv", ["order_id", "order_date", "currency", "amount"], orders)):
    with open(Path("data", name), "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
PY
