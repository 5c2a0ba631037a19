"""An unpaid invoice whose amount ends in a 0 cent digit (1234.50: two decimals, not 1234.5)."""
import csv
import re
import sys
from pathlib import Path

if not (Path("templates/reminder.txt").is_file() and Path("data/invoices.csv").is_file()):
    sys.exit(print("no templates/reminder.txt or data/invoices.csv") or 1)
template = Path("templates/reminder.txt").read_text()
with open("data/invoices.csv", newline="") as fh:
    unpaid = [r for r in csv.DictReader(fh) if r["status"] == "unpaid"]
found = [r for r in unpaid if int(r["amount_cents"]) % 10 == 0]
sys.exit(0 if found and "{{amount}}" in template else print("no unpaid amount ending in 0 cents, or no {{amount}}") or 1)
