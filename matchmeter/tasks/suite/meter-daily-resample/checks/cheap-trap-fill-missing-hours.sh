# why: ignores filling the missing hours (sums the readings), does the rest well
set -uo pipefail
python3 - <<'EOF'
import csv, os
from collections import defaultdict
seen = {r["timestamp"]: float(r["kwh"]) for r in csv.DictReader(open("data/meter_readings.csv")) if r["kwh"]}
day = defaultdict(list)
for ts, v in seen.items():
    day[ts[:10]].append(v)
os.makedirs("answer", exist_ok=True)
with open("answer/daily.csv", "w") as f:
    f.write("date,hours,kwh\n")
    for d in sorted(day):
        f.write(f"{d},{len(day[d])},{sum(day[d]):.2f}\n")
EOF
