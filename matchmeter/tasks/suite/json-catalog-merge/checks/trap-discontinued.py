"""A product of base.json marked discontinued (it must go)."""
import json
import sys
from pathlib import Path

try:
    base = json.loads(Path("catalog/base.json").read_text())
    changes = json.loads(Path("catalog/updates.json").read_text())["changes"]
except (OSError, ValueError, KeyError, TypeError):
    base, changes = [], []
known = {p["sku"] for p in base}
found = [c for c in changes if c["sku"] in known and c.get("discontinued") is True]
sys.exit(0 if found else print("no discontinued product of base.json") or 1)
