"""An sku changed twice, both times with a stock_delta (one folded change per sku loses one)."""
import json
import sys
from pathlib import Path

try:
    base = json.loads(Path("catalog/base.json").read_text())
    changes = json.loads(Path("catalog/updates.json").read_text())["changes"]
except (OSError, ValueError, KeyError, TypeError):
    base, changes = [], []
known = {p["sku"] for p in base}
found = [s for s in known if sum(1 for c in changes if c["sku"] == s and "stock_delta" in c) >= 2]
sys.exit(0 if found else print("no sku with two changes carrying a stock_delta") or 1)
