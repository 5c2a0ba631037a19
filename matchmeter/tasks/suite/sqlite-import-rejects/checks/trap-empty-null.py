"""A supplier with an empty country and a valid part with empty notes (both load as NULL)."""
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
ok_part = [p for p in parts if p["notes"] == "" and p["supplier_id"] in ids and re.fullmatch(r"\d+", p["qty"])
           and re.fullmatch(r"\d+(\.\d+)?", p["price"]) and float(p["price"]) > 0]
no_country = [s for s in suppliers if s["country"] == ""]
sys.exit(0 if ok_part and no_country else print(f"valid parts with empty notes: {len(ok_part)}, suppliers without country: {len(no_country)}") or 1)
