"""ab-test-ztest verifier: rates per variant over distinct assigned users, purchases strictly after
assignment; z accepted with the pooled or the unpooled standard error."""

import csv
import json
import math

from verifylib import close, grade, pristine, read

root = pristine() / "data"
arm, since = {}, {}
with open(root / "assignments.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        arm[row["user_id"]] = row["variant"]
        since[row["user_id"]] = row["assigned_at"]
converted = set()
with open(root / "events.csv", newline="") as fh:
    for row in csv.DictReader(fh):
        u = row["user_id"]
        if row["event"] == "purchase" and u in arm and row["ts"] > since[u]:
            converted.add(u)
n = {a: sum(v == a for v in arm.values()) for a in ("control", "treatment")}
x = {a: sum(arm[u] == a for u in converted) for a in n}
p = {a: x[a] / n[a] for a in n}
pool = (x["control"] + x["treatment"]) / (n["control"] + n["treatment"])
diff = p["treatment"] - p["control"]
z_pooled = diff / math.sqrt(pool * (1 - pool) * (1 / n["control"] + 1 / n["treatment"]))
z_unpooled = diff / math.sqrt(sum(p[a] * (1 - p[a]) / n[a] for a in n))


def answer():
    return json.loads(read("answer.json"))


grade({"control_rate": 0.25, "treatment_rate": 0.25, "z": 0.5},
      {"control_rate": lambda: close(answer()["control_rate"], p["control"], 1e-4),
       "treatment_rate": lambda: close(answer()["treatment_rate"], p["treatment"], 1e-4),
       "z": lambda: close(answer()["z"], z_pooled, 1e-3) or close(answer()["z"], z_unpooled, 1e-3)})
