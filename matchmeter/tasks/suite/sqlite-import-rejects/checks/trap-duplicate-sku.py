"""A sku repeated, its first row valid and the rows different (keep the first)."""
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
def valid(p):
    return (p["supplier_id"] in ids and re.fullmatch(r"\d+(\.\d+)?", p["price"]) is not None and float(p["price"]) > 0
            and re.fullmatch(r"\d+", p["qty"]) is not None)


first = {}
found = []
for p in parts:
    if p["sku"] in first and first[p["sku"]] != p and valid(first[p["sku"]]):
        found.append(p["sku"])
    first.setdefault(p["sku"], p)
sys.exit(0 if found else print("no repeated sku after a valid first row") or 1)
