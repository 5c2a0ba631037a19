"""Trap: in each arm some user is listed twice in data/assignments.csv."""
import csv
import sys
from collections import Counter

rows = list(csv.DictReader(open("data/assignments.csv", newline="")))
times = Counter((r["user_id"], r["variant"]) for r in rows)
missing = [a for a in ("control", "treatment") if not any(k[1] == a and c > 1 for k, c in times.items())]
if missing:
    sys.exit(f"no user assigned twice in {missing}")
