"""Trap probe: an order with items whose customer name holds a double quote (exit 0 iff data/orders.json plants it)."""
import json
import sys

orders = json.load(open("data/orders.json"))["orders"]
hits = [o["id"] for o in orders if o["items"] and '"' in o["customer"]["name"]]
print(hits or "no order with items has a customer name with a double quote")
sys.exit(0 if hits else 1)
