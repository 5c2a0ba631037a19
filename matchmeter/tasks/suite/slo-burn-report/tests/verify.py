"""slo-burn-report verifier: both log schemas merged, truncated lines skipped, /healthz excluded,
5xx = failure; budget_used = failure rate / 0.005; worst clock hour by burn rate (one seeded
incident per service makes it unique)."""

import datetime as dt
import gzip
import json
from collections import defaultdict

from verifylib import close, grade, pristine, read

total, bad = defaultdict(int), defaultdict(int)
hour_total, hour_bad = defaultdict(int), defaultdict(int)
for f in sorted((pristine() / "logs").glob("*.jsonl.gz")):
    for line in gzip.decompress(f.read_bytes()).decode().splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if "time" in r:
            t = dt.datetime.fromisoformat(r["time"].replace("Z", "+00:00"))
            svc, route, status = r["svc"], r["path"], r["status"]
        else:
            t = dt.datetime.fromtimestamp(r["ts"] / 1000, dt.timezone.utc)
            svc, route, status = r["service"], r["route"], r["code"]
        if route == "/healthz":
            continue
        hour = t.strftime("%Y-%m-%dT%H")
        failed = 500 <= status < 600
        total[svc] += 1
        bad[svc] += failed
        hour_total[svc, hour] += 1
        hour_bad[svc, hour] += failed
worst = {}
for svc in total:
    burns = {h: hour_bad[s, h] / hour_total[s, h] / 0.005 for s, h in hour_total if s == svc}
    peak = max(burns.values())
    worst[svc] = ({h for h, b in burns.items() if b == peak}, peak)  # any tied hour is accepted


def answer():
    return json.loads(read("answer/slo.json"))


def each(check):
    a = answer()
    return sum(bool(check(a.get(s, {}), s)) for s in total) / len(total)


grade({"requests": 0.15, "availability": 0.25, "budget_used": 0.2, "worst_hour": 0.25, "worst_hour_burn": 0.15},
      {"requests": lambda: each(lambda r, s: int(r["requests"]) == total[s]),
       "availability": lambda: each(lambda r, s: close(r["availability"], 1 - bad[s] / total[s], 1e-5)),
       "budget_used": lambda: each(lambda r, s: close(r["budget_used"], bad[s] / total[s] / 0.005, 1e-3)),
       "worst_hour": lambda: each(lambda r, s: str(r["worst_hour"]).replace(" ", "T")[:13] in worst[s][0]),
       "worst_hour_burn": lambda: each(lambda r, s: close(r["worst_hour_burn"], worst[s][1], 0.01))})
