#!/usr/bin/env bash
# why: another way and another layout: bisect over the band edges, each count labelled with its band
set -euo pipefail
mkdir -p answer
python3 - <<'EOF'
import bisect, csv
labels = ["under 25", "25-50", "50-100", "100-250", "250-500", "500-1000", "1000 or more"]
counts = dict.fromkeys(labels, 0)
for row in csv.DictReader(open("data/orders.csv", newline="")):
    total = row["total"].replace(",", "").strip()
    if total:
        counts[labels[bisect.bisect_right([25, 50, 100, 250, 500, 1000], float(total))]] += 1
open("answer/histogram.txt", "w").write("".join(f"{k}: {v}\n" for k, v in counts.items()))
EOF
