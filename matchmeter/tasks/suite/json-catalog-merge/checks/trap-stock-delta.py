"""A change for a product base.json has, with a non-zero stock_delta (added to the stock)."""
import json
import sys
from pathlib import Path

try:
    base = json.loads(Path("catalog/base.json").read_text())
    changes = json.loads(Path("catalog/updates.json").read_text())["changes"]
except (OSError, ValueError, KeyError, TypeError):
    base, changes = [], []
known = {p["sku"] for p in base}
found = [c for c in changes if c["sku"] in known and c.get("stock_delta")]
sys.exit(0 if found else print("no change with a stock_delta for an existing product") or 1)
