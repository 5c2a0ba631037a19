#!/usr/bin/env bash
# Seeds templates/reminder.txt ({{placeholders}}, one used twice) and data/invoices.csv (paid and
# unpaid invoices, amounts in cents, ISO due dates, names with &, / and quotes that break sed).
# Every seed plants each named case (checks/trap-*.py): an indented block in the template, unpaid
# invoices named with &, with a backslash and with CSV-quoted double quotes, an unpaid amount ending in
# 0 cents, and a paid invoice.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
company = rng.choice(["Brightwater Supplies", "Fernhill & Co", "Kiln/Forge Ltd"])
greeting = rng.choice(["Dear {{name}},", "Hello {{name}},"])
indent = rng.choice(["    ", "  ", "\t"])
template = f"""{greeting}

Our records show that invoice {{{{invoice}}}} for {{{{amount}}}} {{{{currency}}}} was due on {{{{due_date}}}}
and has not been paid yet. Please settle invoice {{{{invoice}}}} within {rng.choice([7, 10, 14])} days.

{indent}Invoice:   {{{{invoice}}}}
{indent}Amount:    {{{{amount}}}} {{{{currency}}}}
{indent}Due date:  {{{{due_date}}}}

{rng.choice(["Kind regards", "Best wishes", "Sincerely"])},
{company}
"""
names = ["Marta Weiss", "Smith & Sons", "R&D Dept / Lab 4", "Chloé Martin", "O'Hara Bakery", "Nils \"Nisse\" Berg",
         "Back\\slash Media", "Tanaka Farms", "Ute's Café", "Harbor 12|B"]
rows = []
for i in rng.sample(range(1, 400), rng.randint(7, 11)):
    cents = rng.randint(1500, 999999)
    if rng.random() < 0.2:
        cents -= cents % 100
    rows.append({"invoice": f"INV-{2024}-{i:04d}", "name": rng.choice(names), "amount_cents": cents,
                 "currency": rng.choice(["EUR", "USD", "CHF"]),
                 "due_date": f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                 "status": rng.choice(["unpaid", "unpaid", "paid"])})
# The named cases, each on an unpaid invoice: "&", a backslash, CSV-quoted '"', an amount like 1234.50.
for row, name in zip(rows, [rng.choice(["Smith & Sons", "R&D Dept / Lab 4"]), "Back\\slash Media", "Nils \"Nisse\" Berg"]):
    row.update(status="unpaid", name=name)
rows[3]["status"] = "unpaid"
rows[3]["amount_cents"] -= rows[3]["amount_cents"] % 10 if rng.random() < 0.5 else rows[3]["amount_cents"] % 100
rows[4]["status"] = "paid"
rng.shuffle(rows)
Path("templates").mkdir(exist_ok=True)
Path("templates/reminder.txt").write_text(template)
Path("data").mkdir(exist_ok=True)
with open("data/invoices.csv", "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
PY
