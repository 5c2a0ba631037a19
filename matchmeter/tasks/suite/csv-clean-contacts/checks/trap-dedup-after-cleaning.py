"""Trap probe: a later row whose email equals an earlier one only after trimming and lower-casing."""
import csv
import sys

with open("data/contacts.csv", newline="", encoding="utf-8") as fh:
    rows = list(csv.DictReader(fh))
raw = [r["email"] for r in rows]
dups = [e for i, e in enumerate(raw) if any(e.strip().lower() == x.strip().lower() and e != x for x in raw[:i])]
print(dups or "no duplicate that differs only in case or spaces")
sys.exit(0 if dups else 1)
