"""Trap probe: both an empty and a "-" missing reading."""
import sys

text = open("data/rainfall.csv", "rb").read().decode("latin-1")
table = [line.split(";") for line in text.splitlines() if line]
cells = {c.strip() for r in table[1:] for c in r[2:]}
print(sorted(cells & {"", "-"}))
sys.exit(0 if {"", "-"} <= cells else 1)
