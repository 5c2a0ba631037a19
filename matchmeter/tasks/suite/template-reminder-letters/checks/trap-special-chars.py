"""Unpaid invoices whose names hold & and a backslash (a sed replacement mangles both)."""
import csv
import re
import sys
from pathlib import Path

if not (Path("templates/reminder.txt").is_file() and Path("data/invoices.csv").is_file()):
    sys.exit(print("no templates/reminder.txt or data/invoices.csv") or 1)
template = Path("templates/reminder.txt").read_text()
with open("data/invoices.csv", newline="") as fh:
    unpaid = [r for r in csv.DictReader(fh) if r["status"] == "unpaid"]
amp = [r for r in unpaid if "&" in r["name"]]
slash = [r for r in unpaid if "\\" in r["name"]]
sys.exit(0 if amp and slash and "{{name}}" in template else print(f"unpaid names with &: {len(amp)}, with a backslash: {len(slash)}") or 1)
