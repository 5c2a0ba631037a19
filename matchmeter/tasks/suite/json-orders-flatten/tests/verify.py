"""json-orders-flatten verifier: one CSV row per order item with the stated columns, in export order."""

import csv
import io
import json

from verifylib import grade, pristine, read

HEADER = ["order_id", "status", "customer_name", "customer_email", "country", "sku", "qty", "price"]
orders = json.loads((pristine() / "data" / "orders.json").read_text())["orders"]
expected = [[str(o["id"]), o["status"], o["customer"]["name"], o["customer"]["email"],
             (o["customer"].get("address") or {}).get("country") or "", i["sku"], str(i["qty"]), i["price"]]
            for o in orders for i in o["items"]]


def parsed():
    rows = list(csv.reader(io.StringIO(read("data/order_items.csv"))))
    # Orders without items may show up as a row with empty item cells: both readings are fine.
    return rows[0], [r for r in rows[1:] if r and not (len(r) == 8 and r[5] == "")]


def same(row, want):
    try:
        return len(row) == 8 and row[:7] == want[:7] and abs(float(row[7]) - want[7]) < 0.005
    except ValueError:
        return False


TRAPPED = [i for i, (o, _item) in enumerate((o, i) for o in orders for i in o["items"])
           if any(c in o["customer"]["name"] for c in ',"') or not (o["customer"].get("address") or {}).get("country")]


def matched():
    """For each expected row, the index of the got row that holds it (first unused), or None."""
    got, used, where = parsed()[1], set(), []
    for want in expected:
        k = next((k for k, r in enumerate(got) if k not in used and same(r, want)), None)
        if k is not None:
            used.add(k)
        where.append(k)
    return where


def traps():
    """The named traps (task.toml) all handled: every item of an order whose customer name holds a comma
    or a quote or whose country is missing is a right row, and the rows found keep the export order.
    A sloppy answer fails one and is paid nothing, so skipping a trap never pays."""
    try:
        where = matched()
    except Exception:  # noqa: BLE001 - a missing or unreadable file handles no trap
        return False
    found = [k for k in where if k is not None]
    return all(where[i] is not None for i in TRAPPED) and found == sorted(found)


def gated(check):
    return lambda: check() if traps() else 0.0


def header():
    return parsed()[0] == HEADER


def rows():
    got = parsed()[1]
    pool = list(got)
    hits = 0
    for want in expected:
        match = next((r for r in pool if same(r, want)), None)
        if match is not None:
            pool.remove(match)
            hits += 1
    return hits / max(len(expected), len(got))


def ordered():
    got = parsed()[1]
    return len(got) == len(expected) and all(same(r, w) for r, w in zip(got, expected))


grade({"header": 0.15, "item_rows": 0.6, "export_order": 0.25},
      {"header": gated(header), "item_rows": gated(rows), "export_order": gated(ordered)})
