"""A runtime row whose quoted note holds a comma before the scope column (splitting lines on "," shifts it)."""
import csv
import sys
from pathlib import Path

text = Path("data/deps.csv").read_text() if Path("data/deps.csv").is_file() else ""
lines = text.splitlines()
head = next(csv.reader(lines[:1]), [])
found = [ln for ln, row in zip(lines[1:], csv.reader(lines[1:]))
         if "scope" in head and len(row) == len(head) and row[head.index("scope")] == "runtime"
         and len(ln.split(",")) > len(head) and head.index("scope") > min(i for i, c in enumerate(row) if "," in c)]
sys.exit(0 if found else print("data/deps.csv has no runtime row with a comma inside a field before scope") or 1)
