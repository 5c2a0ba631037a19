"""weekly-sales-jump verifier: all stores summed per day; Monday-start weeks; largest absolute
increase over the previous week (the promotion week, a clear winner); trailing 7-day mean.
The promotion is chain-wide, so any single store finds its week: the week alone weighs 0.3, the summed
increase 0.4."""

import csv
import datetime as dt
import json
from collections import defaultdict

from verifylib import close, grade, pristine, read

daily = defaultdict(float)
for f in sorted((pristine() / "data" / "sales").glob("*.csv")):
    with open(f, newline="") as fh:
        for row in csv.DictReader(fh):
            daily[dt.date.fromisoformat(row["date"])] += float(row["revenue"])
weekly = defaultdict(float)
for day, value in daily.items():
    weekly[day - dt.timedelta(days=day.weekday())] += value
mondays = sorted(weekly)
jumps = {m: weekly[m] - weekly[p] for p, m in zip(mondays, mondays[1:])}
best = max(jumps, key=jumps.get)
last = sorted(daily)[-7:]
avg7 = sum(daily[d] for d in last) / 7


def answer():
    return json.loads(read("answer.json"))


def week_ok():
    return str(answer()["week_start"]).strip()[:10] == best.isoformat()


def increase_ok():
    return close(answer()["increase"], jumps[best], 0.01)


# Monday-to-Sunday weeks named by their Monday are the task: the increase pays only beside the right Monday
# (a week named by its Sunday kept 0.7), the trailing average only beside the right week or increase.
grade({"week_start": 0.3, "increase": 0.4, "last_7_day_avg": 0.3},
      {"week_start": week_ok,
       "increase": lambda: increase_ok() and week_ok(),
       "last_7_day_avg": lambda: close(answer()["last_7_day_avg"], avg7, 0.01) and (week_ok() or increase_ok())})
