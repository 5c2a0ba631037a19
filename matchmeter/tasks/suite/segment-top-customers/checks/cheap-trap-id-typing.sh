# why: ignores how ids are typed (joined exactly as written), does the rest well
set -uo pipefail
python3 - <<'EOF'
import csv, os
from collections import defaultdict
seg = {r["customer_id"]: r["segment"] for r in csv.DictReader(open("data/customers.csv"))}
rev = defaultdict(float)
for o in csv.DictReader(open("data/orders.csv")):
    c = o["customer_id"]
    if o["status"] == "completed" and c in seg:
        rev[c] += float(o["amount"])
os.makedirs("answer", exist_ok=True)
with open("answer/top_customers.csv", "w") as f:
    f.write("segment,rank,customer_id,revenue\n")
    for s in sorted(set(seg.values())):
        top = sorted((c for c in rev if seg[c] == s), key=lambda c: -rev[c])[:3]
        for k, c in enumerate(top, 1):
            f.write(f"{s},{k},{c},{rev[c]:.2f}\n")
EOF
