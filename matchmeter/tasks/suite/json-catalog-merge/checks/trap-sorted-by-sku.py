"""The products that stay are not already in sku order in base.json."""
import json
import sys
from pathlib import Path

try:
    base = json.loads(Path("catalog/base.json").read_text())
    changes = json.loads(Path("catalog/updates.json").read_text())["changes"]
except (OSError, ValueError, KeyError, TypeError):
    base, changes = [], []
known = {p["sku"] for p in base}
gone = {c["sku"] for c in changes if c.get("discontinued")}
order = [p["sku"] for p in base if p["sku"] not in gone]
sys.exit(0 if len(order) > 1 and order != sorted(order) else print("base.json's surviving products are in sku order") or 1)
