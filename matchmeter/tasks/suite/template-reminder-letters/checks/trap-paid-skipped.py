"""A paid invoice beside the unpaid ones (it gets no letter)."""
import csv
import re
import sys
from pathlib import Path

if not (Path("templates/reminder.txt").is_file() and Path("data/invoices.csv").is_file()):
    sys.exit(print("no templates/reminder.txt or data/invoices.csv") or 1)
template = Path("templates/reminder.txt").read_text()
with open("data/invoices.csv", newline="") as fh:
    unpaid = [r for r in csv.DictReader(fh) if r["status"] == "unpaid"]
with open("data/invoices.csv", newline="") as fh:
    paid = [r for r in csv.DictReader(fh) if r["status"] != "unpaid"]
sys.exit(0 if paid and unpaid else print(f"paid invoices: {len(paid)}, unpaid: {len(unpaid)}") or 1)
