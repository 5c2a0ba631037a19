# why: ignores the SKU renames (old rows kept under their old SKU), does the rest well
set -uo pipefail
python3 - <<'EOF'
import csv, glob, os
from collections import defaultdict
R = lambda p: list(csv.DictReader(open(p)))
ren = {}
prod = {r["sku"]: r for r in R("data/products.csv")}
book = defaultdict(int)
for r in R("data/opening_stock_2024-01-01.csv"):
    book[ren.get(r["sku"], r["sku"])] += int(r["on_hand_units"])
for f in sorted(glob.glob("data/ledger/*.csv")):
    for r in R(f):
        s = ren.get(r["sku"], r["sku"])
        u = int(r["qty"]) * (int(prod[s]["case_size"]) if r["uom"] == "CS" and s in prod else 1)
        book[s] += -u if r["movement"] in ("sale", "write_off", "transfer_out") else u
cnt = {r["sku"]: int(r["counted_units"]) for r in R("data/count_2024-03-31.csv")}
os.makedirs("answer", exist_ok=True)
shrink = 0.0
with open("answer/discrepancies.csv", "w") as f:
    f.write("sku,expected,counted,difference\n")
    for s in sorted(cnt):
        d = cnt[s] - book[s]
        if d:
            f.write(f"{s},{book[s]},{cnt[s]},{d}\n")
            shrink += -d * float(prod[s]["unit_cost"]) if d < 0 else 0
open("answer/shrinkage_value.txt", "w").write(f"{shrink:.2f}\n")
EOF
