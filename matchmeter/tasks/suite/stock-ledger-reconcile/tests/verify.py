"""stock-ledger-reconcile verifier: units = qty x case_size for CS rows; sale/write_off/transfer_out
subtract, adjustments carry their sign; old SKUs map to current ones; shrinkage = shortfalls x cost."""

import csv
from collections import defaultdict

from verifylib import close, grade, pristine, read

root = pristine() / "data"


def rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


rename = {r["old_sku"]: r["new_sku"] for r in rows(root / "sku_changes.csv")}
current = lambda s: rename.get(s, s)  # noqa: E731
product = {r["sku"]: r for r in rows(root / "products.csv")}
book = defaultdict(int)
for r in rows(root / "opening_stock_2024-01-01.csv"):
    book[current(r["sku"])] += int(r["on_hand_units"])
OUT = {"sale", "write_off", "transfer_out"}
for f in sorted((root / "ledger").glob("*.csv")):
    for r in rows(f):
        sku = current(r["sku"])
        units = int(r["qty"]) * (int(product[sku]["case_size"]) if r["uom"] == "CS" else 1)
        book[sku] += -units if r["movement"] in OUT else units
count = {r["sku"]: int(r["counted_units"]) for r in rows(root / "count_2024-03-31.csv")}
expected = {s: (book[s], count[s], count[s] - book[s]) for s in sorted(count) if count[s] != book[s]}
shrink = sum(-d * float(product[s]["unit_cost"]) for s, (_, _, d) in expected.items() if d < 0)


def answer():
    got = {}
    for r in csv.DictReader((read("answer/discrepancies.csv") or "").splitlines()):
        got[r["sku"].strip()] = (int(float(r["expected"])), int(float(r["counted"])), int(float(r["difference"])))
    return got


def renames_ok(got):
    """Every renamed SKU reported exactly as the books say (or not at all when it matches), no old SKU."""
    return not set(rename) & set(got) and all(got.get(n) == expected.get(n) for n in rename.values())


def skus():
    got = answer()
    if not renames_ok(got):  # the renames are the task: skipping them kept 0.89
        return 0.0
    return len(set(got) & set(expected)) / len(set(got) | set(expected))


def shrink_ok():
    """Right value, and a discrepancy list with the renames right (a rename skipped can leave it unchanged)."""
    return (close((read("answer/shrinkage_value.txt") or "").strip().replace(",", ""), shrink, 0.011)
            and renames_ok(answer()))


def numbers():
    got = answer()
    if not renames_ok(got) or not shrink_ok():  # netting surpluses against shortfalls kept 0.7
        return 0.0
    return sum(got.get(s) == v for s, v in expected.items()) / len(expected)


def order():
    lines = [ln.split(",")[0].strip() for ln in (read("answer/discrepancies.csv") or "").splitlines()[1:] if ln.strip()]
    return bool(lines) and lines == sorted(lines) and shrink_ok()


grade({"skus": 0.3, "numbers": 0.35, "order": 0.05, "shrinkage": 0.3},
      {"skus": skus, "numbers": numbers, "order": order, "shrinkage": shrink_ok})
