"""A part row whose price is not a number at all (N/A, tbd, 12,50)."""
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
found = [p["sku"] for p in parts if not re.fullmatch(r"-?\d+(\.\d+)?", p["price"])]
sys.exit(0 if found else print("every price is a number") or 1)
