# why: ignores the meter's local time (days in UTC), does the rest well
set -uo pipefail
python3 - <<'EOF'
import csv, os
from collections import defaultdict
seen = {r["timestamp"]: float(r["kwh"]) for r in csv.DictReader(open("data/meter_readings.csv")) if r["kwh"]}
day = defaultdict(list)
for ts, v in seen.items():
    import datetime as dt
    day[dt.datetime.fromisoformat(ts).astimezone(dt.timezone.utc).strftime("%Y-%m-%d")].append(v)
os.makedirs("answer", exist_ok=True)
with open("answer/daily.csv", "w") as f:
    f.write("date,hours,kwh\n")
    for d in sorted(day):
        f.write(f"{d},{len(day[d])},{sum(day[d]) / len(day[d]) * 24:.2f}\n")
EOF
