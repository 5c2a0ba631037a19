# why: ignores how postcodes are typed (exact lookup after trim and upper case; unmatched customers left out), does the rest well
set -uo pipefail
python3 - <<'EOF'
import csv, json, math, os
from collections import defaultdict
N = lambda s: s.strip().upper()
dep = {d["code"]: (d["location"]["lat"], d["location"]["lon"]) for d in json.load(open("data/depots.json"))}
pc = {N(r["postcode"]): (float(r["lat"]), float(r["lon"])) for r in csv.DictReader(open("data/postcodes.csv"))}
def hav(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (*a, *b))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * 6371 * math.asin(math.sqrt(h))
os.makedirs("answer", exist_ok=True)
g = defaultdict(list)
with open("answer/assignments.csv", "w") as f:
    f.write("customer_id,depot,distance_km\n")
    for r in csv.DictReader(open("data/customers.csv")):
        if not r["lat"] and N(r["postcode"]) not in pc:
            continue
        p = (float(r["lat"]), float(r["lon"])) if r["lat"] else pc[N(r["postcode"])]
        d = min(dep, key=lambda c: hav(p, dep[c]))
        g[d].append(hav(p, dep[d]))
        f.write(f"{r['customer_id']},{d},{hav(p, dep[d]):.2f}\n")
json.dump({d: {"customers": len(v), "mean_km": round(sum(v) / len(v), 3)} for d, v in g.items()},
          open("answer/depot_summary.json", "w"), indent=1)
EOF
