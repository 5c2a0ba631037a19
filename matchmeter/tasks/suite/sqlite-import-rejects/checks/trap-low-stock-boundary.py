"""A valid part with exactly 10 in stock (not fewer than 10)."""
import csv
import re
import sys
from pathlib import Path

if not (Path("data/parts.csv").is_file() and Path("data/suppliers.csv").is_file()):
    sys.exit(print("no data/parts.csv or data/suppliers.csv") or 1)
with open("data/suppliers.csv", newline="") as fh:
    suppliers = list(csv.DictReader(fh))
with open("data/parts.csv", newline="") as fh:
    parts = list(csv.DictReader(fh))
ids = {s["id"] for s in suppliers}
found = [p for p in parts if p["qty"] == "10" and p["supplier_id"] in ids and re.fullmatch(r"\d+(\.\d+)?", p["price"])
         and float(p["price"]) > 0]
sys.exit(0 if found else print("no valid part with qty 10") or 1)
