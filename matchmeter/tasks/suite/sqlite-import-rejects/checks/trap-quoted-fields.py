"""A row that ends up in rejects.csv has a description with a comma (it needs CSV quoting)."""
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


seen, found = set(), []
for p in parts:
    if valid(p) and p["sku"] not in seen:
        seen.add(p["sku"])
    elif "," in p["description"]:
        found.append(p["sku"])
sys.exit(0 if found else print("no rejected row with a comma in its description") or 1)
