"""A change for an sku base.json does not have (a new product)."""
import json
import sys
from pathlib import Path

try:
    base = json.loads(Path("catalog/base.json").read_text())
    changes = json.loads(Path("catalog/updates.json").read_text())["changes"]
except (OSError, ValueError, KeyError, TypeError):
    base, changes = [], []
known = {p["sku"] for p in base}
found = [c for c in changes if c["sku"] not in known and not c.get("discontinued") and "name" in c]
sys.exit(0 if found else print("no change for an sku base.json lacks") or 1)
