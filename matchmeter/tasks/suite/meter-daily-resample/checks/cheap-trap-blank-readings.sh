# why: ignores readings with no value (read as 0 kWh), does the rest well
set -uo pipefail
python3 - <<'EOF'
import csv, os
from collections import defaultdict
seen = {r["timestamp"]: float(r["kwh"] or 0) for r in csv.DictReader(open("data/meter_readings.csv"))}
day = defaultdict(list)
for ts, v in seen.items():
    day[ts[:10]].append(v)
os.makedirs("answer", exist_ok=True)
with open("answer/daily.csv", "w") as f:
    f.write("date,hours,kwh\n")
    for d in sorted(day):
        f.write(f"{d},{len(day[d])},{sum(day[d]) / len(day[d]) * 24:.2f}\n")
EOF
