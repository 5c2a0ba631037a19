# why: ignores blank cells (dropped without counting them as skipped), does the rest well
set -uo pipefail
python3 - <<'EOF'
import csv, json, math, statistics
from collections import defaultdict
good, skipped = defaultdict(list), defaultdict(int)
with open("data/readings.csv", newline="") as f:
    for row in csv.DictReader(f):
        if not row["value"].strip():
            continue
        try:
            v = float(row["value"])
            if math.isnan(v):
                raise ValueError
            good[row["sensor_id"]].append(v)
        except ValueError:
            skipped[row["sensor_id"]] += 1
ids = sorted(set(good) | set(skipped))
report = {s: {"median": statistics.median(good[s]), "skipped": skipped[s]} for s in ids}
with open("report.json", "w") as f:
    json.dump(report, f, indent=2)
EOF
