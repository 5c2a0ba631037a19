"""A runtime dependency the CSV lists twice (the table has one row per dependency)."""
import csv
import sys
from pathlib import Path

rows = list(csv.DictReader(open("data/deps.csv", newline=""))) if Path("data/deps.csv").is_file() else []
names = [r.get("name") for r in rows if r.get("scope") == "runtime"]
sys.exit(0 if len(names) > len(set(names)) else print("data/deps.csv lists no runtime dependency twice") or 1)
