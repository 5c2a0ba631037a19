"""A dev-only row beside the runtime ones (it must stay out of the table)."""
import csv
import sys
from pathlib import Path

rows = list(csv.DictReader(open("data/deps.csv", newline=""))) if Path("data/deps.csv").is_file() else []
scopes = {r.get("scope") for r in rows}
sys.exit(0 if "dev" in scopes and "runtime" in scopes else print("data/deps.csv has no dev-only row beside runtime ones") or 1)
