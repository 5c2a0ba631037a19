#!/usr/bin/env bash
# Seeds data/contacts.csv: quoted names with commas, emails with stray case and spaces, day/month/year
# dates (not always zero-padded) and a few duplicate contacts whose emails differ only in case/spaces.
# Every seed plants the traps task.toml lists on the first two contacts: a "Last, First" name, a day
# above 12 with an unpadded month, a padded date whose day and month (both <= 12) differ; and the
# duplicates (a later row, other case and spacing, another date).
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
first = ["Ana", "Ben", "Chloé", "Dev", "Emma", "Farid", "Grace", "Hiro", "Ines", "Jon", "Kofi", "Lena", "Mia", "Noor"]
last = ["Smith", "García", "O'Neil", "Chen", "Kowalski", "Okafor", "Dubois", "Rossi", "Haddad", "Berg"]
domains = ["example.com", "mail.test", "corp.example.org"]
rows, used = [], set()
for _ in range(rng.randint(18, 28)):
    f, l = rng.choice(first), rng.choice(last)
    email = f"{f[0]}.{l}{rng.randint(1, 99)}@{rng.choice(domains)}".lower().replace("'", "").replace("é", "e")
    if email in used:
        continue
    used.add(email)
    name = f"{l}, {f}" if rng.random() < 0.4 else f"{f} {l}"
    d, m, y = rng.randint(1, 28), rng.randint(1, 12), rng.randint(2015, 2024)
    date = f"{d:02d}/{m:02d}/{y}" if rng.random() < 0.6 else f"{d}/{m}/{y}"
    shown = email if rng.random() < 0.5 else email.title()
    if rng.random() < 0.3:
        shown = f" {shown} "
    phone = f"+{rng.randint(1, 49)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}"
    rows.append([name, shown, phone, date])
f, l = rows[0][0].replace(",", "").split(" ")[::-1] if "," in rows[0][0] else rows[0][0].split(" ")
rows[0][0] = f"{l}, {f}"
rows[0][3] = f"{rng.randint(13, 28)}/{rng.randint(1, 9)}/{rng.randint(2015, 2024)}"
d, m = rng.sample(range(1, 13), 2)
rows[1][3] = f"{d:02d}/{m:02d}/{rng.randint(2015, 2024)}"
for _ in range(rng.randint(3, 5)):
    src = rng.choice(rows[:-1])
    at = rng.randint(rows.index(src) + 1, len(rows))
    dup = [src[0], f" {src[1].strip().upper()}", src[2], f"{rng.randint(1, 28)}/{rng.randint(1, 12)}/2025"]
    rows.insert(at, dup)
Path("data").mkdir(exist_ok=True)
with open("data/contacts.csv", "w", newline="", encoding="utf-8") as fh:
    writer = csv.writer(fh)
    writer.writerow(["name", "email", "phone", "signup_date"])
    writer.writerows(rows)
PY
