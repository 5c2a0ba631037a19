"""Template lines with leading whitespace that must stay as they are."""
import csv
import re
import sys
from pathlib import Path

if not (Path("templates/reminder.txt").is_file() and Path("data/invoices.csv").is_file()):
    sys.exit(print("no templates/reminder.txt or data/invoices.csv") or 1)
template = Path("templates/reminder.txt").read_text()
with open("data/invoices.csv", newline="") as fh:
    unpaid = [r for r in csv.DictReader(fh) if r["status"] == "unpaid"]
indented = [ln for ln in template.splitlines() if ln[:1] in (" ", "\t") and ln.strip()]
sys.exit(0 if indented else print("no indented template line") or 1)
