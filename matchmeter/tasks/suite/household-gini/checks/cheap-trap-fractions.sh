# why: ignores 'as fractions' (writes percentages), does the rest well
set -uo pipefail
python3 - <<'EOF'
import json
import csv
xs = []
with open("data/households.csv", newline="") as f:
    for row in csv.DictReader(f):
        if row["annual_income"].strip().isdigit():
            xs.append(float(row["annual_income"]))
xs.sort()
n, s = len(xs), sum(xs)
mad = sum(abs(a - b) for a in xs for b in xs)
gini = mad / (2 * n * n * (s / n))
top = sum(xs[-round(n / 10):]) / s
json.dump({"gini": 100 * gini, "top10_share": 100 * top}, open("answer.json", "w"))
EOF
