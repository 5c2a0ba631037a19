"""Trap: some build is a fast outlier under the 1.5 x IQR fences."""
import csv
import statistics
import sys

v = [float(r["duration_s"]) for r in csv.DictReader(open("data/build_times.csv", newline=""))]
q1, _, q3 = statistics.quantiles(v, n=4, method="inclusive")
lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
if not any(x < lo for x in v):
    sys.exit("no fast outlier")
