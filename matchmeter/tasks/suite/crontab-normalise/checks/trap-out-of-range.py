"""A five-field job line with a number outside its field's range (it must go to crontab.errors)."""
import re
import sys
from pathlib import Path

RANGES = [(0, 59), (0, 23), (1, 31), (1, 12), (0, 7)]
text = Path("crontab.txt").read_text() if Path("crontab.txt").is_file() else ""
found = []
for row in (ln.strip() for ln in text.splitlines()):
    tokens = row.split(None, 5)
    if row.startswith(("#", "@")) or len(tokens) < 6:
        continue
    for f, (lo, hi) in zip(tokens[:5], RANGES):
        if any(not lo <= int(n) <= hi for n in re.findall(r"\d+", f.split("/")[0])):
            found.append(row)
sys.exit(0 if found else print("crontab.txt has no job line with a value out of range") or 1)
