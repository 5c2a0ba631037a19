# why: ignores "after being assigned" (any purchase converts), does the rest well
python3 - <<'PY'
import csv, json, math
arm = {r["user_id"]: r["variant"] for r in csv.DictReader(open("data/assignments.csv"))}
conv = {r["user_id"] for r in csv.DictReader(open("data/events.csv"))
        if r["event"] == "purchase" and r["user_id"] in arm}
n = {a: list(arm.values()).count(a) for a in ("control", "treatment")}
x = {a: sum(arm[u] == a for u in conv) for a in n}
p = {a: x[a] / n[a] for a in n}
pp = sum(x.values()) / sum(n.values())
z = (p["treatment"] - p["control"]) / math.sqrt(pp * (1 - pp) * (1 / n["control"] + 1 / n["treatment"]))
json.dump({"control_rate": p["control"], "treatment_rate": p["treatment"], "z": z}, open("answer.json", "w"))
PY
