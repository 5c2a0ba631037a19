"""Trap probe: the export's order ids are not ascending (sorting by id changes the order; exit 0 iff so)."""
import json
import sys

ids = [o["id"] for o in json.load(open("data/orders.json"))["orders"]]
print(ids)
sys.exit(0 if ids != sorted(ids) else 1)
