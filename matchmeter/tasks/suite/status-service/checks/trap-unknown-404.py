"""Trap probe: the inventory's SKUs are unique and a SKU's leading part (without its last -<n>) is no SKU, so a
lookup by that part is an unknown SKU that a prefix match would answer."""
import json
import sys
from pathlib import Path

try:
    skus = [it["sku"] for it in json.loads(Path("data/inventory.json").read_text())]
except (OSError, ValueError, KeyError, TypeError):
    sys.exit("no readable data/inventory.json with SKUs")
if not skus or len(set(skus)) != len(skus):
    sys.exit("no SKUs, or SKUs repeat")
head = skus[0].rsplit("-", 1)[0]
sys.exit(0 if "-" in skus[0] and head not in skus else f"{skus[0]!r} has no unknown leading part")
