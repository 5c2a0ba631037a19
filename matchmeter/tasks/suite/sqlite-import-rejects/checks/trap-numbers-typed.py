"""Valid rows whose price and quantity are numbers written as text in the CSV (to be stored as numbers)."""
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
found = [p for p in parts if re.fullmatch(r"\d+\.\d+", p["price"]) and re.fullmatch(r"\d+", p["qty"]) and p["supplier_id"] in ids]
sys.exit(0 if found else print("no valid row with a decimal price and a whole quantity") or 1)
