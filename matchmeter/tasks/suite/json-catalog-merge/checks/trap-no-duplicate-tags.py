"""A tags change for a product that already has one of those tags (appending would repeat it)."""
import json
import sys
from pathlib import Path

try:
    base = json.loads(Path("catalog/base.json").read_text())
    changes = json.loads(Path("catalog/updates.json").read_text())["changes"]
except (OSError, ValueError, KeyError, TypeError):
    base, changes = [], []
known = {p["sku"] for p in base}
tags = {p["sku"]: list(p.get("tags", [])) for p in base}
found = []
for c in changes:
    if c["sku"] in tags and "tags" in c:
        found += [c] if set(tags[c["sku"]]) & set(c["tags"]) else []
        tags[c["sku"]] += [t for t in c["tags"] if t not in tags[c["sku"]]]
sys.exit(0 if found else print("no tags change repeating a tag the product has") or 1)
