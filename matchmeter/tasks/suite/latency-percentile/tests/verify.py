"""latency-percentile verifier: p95 of 2xx /api/ latencies (linear) within 0.05 ms; 5xx rate within 1e-4."""

import csv
import gzip
import io
import json

from verifylib import close, grade, pristine, read

rows = []
for f in sorted((pristine() / "logs").iterdir()):
    raw = f.read_bytes()
    text = gzip.decompress(raw).decode() if f.name.endswith(".gz") else raw.decode()
    rows += list(csv.DictReader(io.StringIO(text)))
api = [r for r in rows if r["path"].startswith("/api/")]
ok = sorted(float(r["latency_ms"]) for r in api if r["status"].startswith("2"))
pos = 0.95 * (len(ok) - 1)
lo = int(pos)
p95 = ok[lo] + (ok[min(lo + 1, len(ok) - 1)] - ok[lo]) * (pos - lo)
error_rate = sum(r["status"].startswith("5") for r in api) / len(api)


def answer():
    return json.loads(read("answer.json"))


def valid():
    a = answer()
    return set(a) == {"p95_latency_ms", "error_rate"} and all(isinstance(v, (int, float)) for v in a.values())


grade({"answer_valid": 0.1, "p95": 0.5, "error_rate": 0.4},
      {"answer_valid": valid,
       "p95": lambda: close(answer()["p95_latency_ms"], p95, 0.05),
       # Pays only beside a right p95: the 2xx and interpolation rules are the task, not a remainder to skip.
       "error_rate": lambda: close(answer()["error_rate"], error_rate, 1e-4)
       and close(answer()["p95_latency_ms"], p95, 0.05)})
