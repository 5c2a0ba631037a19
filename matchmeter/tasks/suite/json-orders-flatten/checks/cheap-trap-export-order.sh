# why: ignores the export order (rows sorted by order id, then sku), does the rest well
python3 - <<'PY'
import csv, json
orders = json.load(open("data/orders.json"))["orders"]
rows = [[o["id"], o["status"], o["customer"]["name"], o["customer"]["email"],
         (o["customer"].get("address") or {}).get("country") or "", i["sku"], i["qty"], i["price"]]
        for o in orders for i in o["items"]]
with open("data/order_items.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["order_id", "status", "customer_name", "customer_email", "country", "sku", "qty", "price"])
    w.writerows(sorted(rows, key=lambda r: (r[0], r[5])))
PY
