# why: ignores households without an income (counted as 0), does the rest well
set -uo pipefail
python3 - <<'EOF'
import json
import csv
xs = []
with open("data/households.csv", newline="") as f:
    for row in csv.DictReader(f):
        v = row["annual_income"].strip()
        xs.append(float(v) if v.isdigit() else 0.0)
xs.sort()
n, s = len(xs), sum(xs)
mad = sum(abs(a - b) for a in xs for b in xs)
gini = mad / (2 * n * n * (s / n))
top = sum(xs[-round(n / 10):]) / s
json.dump({"gini": gini, "top10_share": top}, open("answer.json", "w"))
EOF
