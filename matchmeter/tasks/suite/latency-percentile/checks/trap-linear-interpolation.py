"""Trap: the linear (numpy default) p95 of 2xx API latencies differs by > 0.05 ms from nearest rank and
from the exclusive method."""
import csv
import glob
import gzip
import io
import sys

rows = []
for name in glob.glob("logs/requests.log*"):
    raw = open(name, "rb").read()
    rows += csv.DictReader(io.StringIO((gzip.decompress(raw) if name.endswith(".gz") else raw).decode()))
ok = sorted(float(r["latency_ms"]) for r in rows if r["path"].startswith("/api/") and r["status"].startswith("2"))
n = len(ok)


def at(pos):
    lo = int(pos)
    return ok[lo] + (ok[min(lo + 1, n - 1)] - ok[lo]) * (pos - lo)


linear, nearest, exclusive = at(0.95 * (n - 1)), ok[-(-95 * n // 100) - 1], at(min(0.95 * (n + 1) - 1, n - 1))
if min(abs(linear - nearest), abs(linear - exclusive)) <= 0.05:
    sys.exit(f"p95 methods agree: linear {linear}, nearest rank {nearest}, exclusive {exclusive}")
