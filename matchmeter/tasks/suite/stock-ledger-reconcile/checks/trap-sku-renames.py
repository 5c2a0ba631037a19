"""Trap: a renamed SKU's old name appears in the opening stock or the ledger."""
import csv
import glob
import sys

R = lambda p: list(csv.DictReader(open(p, newline="")))  # noqa: E731
old = {r["old_sku"] for r in R("data/sku_changes.csv")}
used = {r["sku"] for r in R("data/opening_stock_2024-01-01.csv")}
for f in glob.glob("data/ledger/*.csv"):
    used |= {r["sku"] for r in R(f)}
if not old & used:
    sys.exit("no row under an old SKU")
