"""Trap probe: orders with items whose customer has no address, and whose address has no country (exit 0 iff both)."""
import json
import sys

orders = [o for o in json.load(open("data/orders.json"))["orders"] if o["items"]]
no_address = [o["id"] for o in orders if "address" not in o["customer"]]
no_country = [o["id"] for o in orders if "country" not in o["customer"].get("address", {"country": 1})]
print(no_address, no_country)
sys.exit(0 if no_address and no_country else 1)
