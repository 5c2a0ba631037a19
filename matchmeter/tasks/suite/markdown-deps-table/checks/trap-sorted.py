"""The runtime rows are not already in package-name order."""
import csv
import sys
from pathlib import Path

rows = list(csv.DictReader(open("data/deps.csv", newline=""))) if Path("data/deps.csv").is_file() else []
names = [r.get("name") for r in rows if r.get("scope") == "runtime"]
sys.exit(0 if names and names != sorted(names) else print("data/deps.csv's runtime rows are already sorted (or none)") or 1)
