"""A placeholder that the template uses more than once."""
import csv
import re
import sys
from pathlib import Path

if not (Path("templates/reminder.txt").is_file() and Path("data/invoices.csv").is_file()):
    sys.exit(print("no templates/reminder.txt or data/invoices.csv") or 1)
template = Path("templates/reminder.txt").read_text()
with open("data/invoices.csv", newline="") as fh:
    unpaid = [r for r in csv.DictReader(fh) if r["status"] == "unpaid"]
counts = {k: template.count("{{" + k + "}}") for k in re.findall(r"\{\{(\w+)\}\}", template)}
sys.exit(0 if unpaid and any(n > 1 for n in counts.values()) else print(f"no placeholder used twice: {counts}") or 1)
