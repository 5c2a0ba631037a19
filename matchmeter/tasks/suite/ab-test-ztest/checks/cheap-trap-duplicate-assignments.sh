# why: ignores users assigned twice (counts assignment rows, not users), does the rest well
python3 - <<'PY'
import csv, json, math
rows = list(csv.DictReader(open("data/assignments.csv")))
arm = {r["user_id"]: r["variant"] for r in rows}
at = {r["user_id"]: r["assigned_at"] for r in rows}
conv = {r["user_id"] for r in csv.DictReader(open("data/events.csv"))
        if r["event"] == "purchase" and r["user_id"] in arm and r["ts"] > at[r["user_id"]]}
n = {a: sum(r["variant"] == a for r in rows) for a in ("control", "treatment")}
x = {a: sum(arm[u] == a for u in conv) for a in n}
p = {a: x[a] / n[a] for a in n}
pp = sum(x.values()) / sum(n.values())
z = (p["treatment"] - p["control"]) / math.sqrt(pp * (1 - pp) * (1 / n["control"] + 1 / n["treatment"]))
json.dump({"control_rate": p["control"], "treatment_rate": p["treatment"], "z": z}, open("answer.json", "w"))
PY
