"""An unpaid invoice whose name is a quoted CSV field (its double quotes doubled in the file)."""
import csv
import re
import sys
from pathlib import Path

if not (Path("templates/reminder.txt").is_file() and Path("data/invoices.csv").is_file()):
    sys.exit(print("no templates/reminder.txt or data/invoices.csv") or 1)
template = Path("templates/reminder.txt").read_text()
with open("data/invoices.csv", newline="") as fh:
    unpaid = [r for r in csv.DictReader(fh) if r["status"] == "unpaid"]
raw = Path("data/invoices.csv").read_text()
found = [r for r in unpaid if "\"" in r["name"] and "\"" + r["name"].replace("\"", "\"\"") + "\"" in raw]
sys.exit(0 if found else print("no unpaid name written as a quoted CSV field") or 1)
