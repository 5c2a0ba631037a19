#!/usr/bin/env bash
# why: only the first store's CSV (the starting state's first file), not all stores together
set -uo pipefail
python3 - <<'PY_END'
import csv, datetime as dt, json, pathlib
f = sorted(pathlib.Path("data/sales").glob("*.csv"))[0]
day = {dt.date.fromisoformat(r["date"]): float(r["revenue"]) for r in csv.DictReader(open(f))}
wk = {}
for d, v in day.items():
    m = d - dt.timedelta(days=d.weekday()); wk[m] = wk.get(m, 0) + v
ms = sorted(wk); inc = {b: wk[b] - wk[a] for a, b in zip(ms, ms[1:])}
best = max(inc, key=inc.get); last = sorted(day)[-7:]
json.dump({"week_start": best.isoformat(), "increase": round(inc[best], 2),
           "last_7_day_avg": round(sum(day[d] for d in last) / 7, 2)}, open("answer.json", "w"))
PY_END
