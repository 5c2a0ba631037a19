"""Trap probe: data/inventory.json holds entries that are not just sku/name/qty/price: one with extra (nested, null)
fields and one without a price."""
import json
import sys
from pathlib import Path

try:
    items = json.loads(Path("data/inventory.json").read_text())
except (OSError, ValueError):
    sys.exit("no readable data/inventory.json")
usual = {"sku", "name", "qty", "price"}
extra = [it for it in items if set(it) > usual and any(v is None or isinstance(v, (dict, list)) for v in it.values())]
no_price = [it for it in items if "price" not in it]
sys.exit(0 if extra and no_price else f"extra-field entries: {len(extra)}, entries without price: {len(no_price)}")
