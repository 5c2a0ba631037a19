"""The CSV's own column names are not the table's Package/Version/License (copying its header is wrong)."""
import csv
import sys
from pathlib import Path

rows = list(csv.reader(open("data/deps.csv", newline=""))) if Path("data/deps.csv").is_file() else []
head = rows[0] if rows else []
ok = len(head) >= 3 and head[:3] != ["Package", "Version", "License"] and {"name", "version", "license"} <= set(head)
sys.exit(0 if ok else print("data/deps.csv's header is missing or already Package, Version, License") or 1)
