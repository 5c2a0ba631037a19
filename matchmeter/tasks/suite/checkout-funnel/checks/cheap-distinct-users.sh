# why: distinct users per event type, order ignored (the visible half of the rule)
set -uo pipefail
python3 - <<'PY_END'
import json, os
users = {}
for line in open("data/events.jsonl"):
    e = json.loads(line); users.setdefault(e["event"], set()).add(e["user"])
steps = ["view_product", "add_to_cart", "begin_checkout", "purchase"]
n = [len(users.get(s, ())) for s in steps]
os.makedirs("answer", exist_ok=True)
json.dump(dict(zip(steps, n), overall_conversion=n[3] / n[0]), open("answer/funnel.json", "w"))
PY_END
