#!/usr/bin/env bash
# why: one regular-expression pass over the template (not one replace per key), amounts by divmod
set -euo pipefail
mkdir -p letters
python3 - <<'EOF'
import csv, re
template = open("templates/reminder.txt").read()
for row in csv.DictReader(open("data/invoices.csv", newline="")):
    if row["status"] == "unpaid":
        units, cents = divmod(int(row["amount_cents"]), 100)
        values = {**row, "amount": "%d.%02d" % (units, cents)}
        text = re.sub(r"\{\{(\w+)\}\}", lambda m: values[m.group(1)], template)
        open("letters/%s.txt" % row["invoice"], "w").write(text)
EOF
