# why: ignores the pending week (blank rows dropped, pending read as 0, as awk would), does the rest well
set -uo pipefail
python3 - <<'EOF'
import csv, json, statistics
rows = [dict(r, signups="0" if r["signups"] == "pending" else r["signups"]) for r in csv.DictReader(open("data/campaign_weeks.csv")) if r["signups"]]
x = [float(r["ad_spend_eur"]) for r in rows]
y = [float(r["signups"]) for r in rows]
fit = statistics.linear_regression(x, y)
r = statistics.correlation(x, y)
json.dump({"slope": fit.slope, "intercept": fit.intercept, "r_squared": r * r}, open("answer.json", "w"))
EOF
