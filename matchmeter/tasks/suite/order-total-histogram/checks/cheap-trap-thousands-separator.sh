# why: ignores totals written with a thousands separator (unparsable ones skipped), does the rest well
set -uo pipefail
python3 - <<'EOF'
import csv, os
edges = [25, 50, 100, 250, 500, 1000]
counts = [0] * 7
with open("data/orders.csv", newline="") as f:
    for row in csv.DictReader(f):
        if row["total"].strip() and "," not in row["total"]:
            v = float(row["total"])
            counts[sum(v >= e for e in edges)] += 1
os.makedirs("answer", exist_ok=True)
with open("answer/histogram.txt", "w") as f:
    f.write("\n".join(map(str, counts)) + "\n")
EOF
