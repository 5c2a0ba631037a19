"""Trap probe: readings written with a decimal comma."""
import sys

text = open("data/rainfall.csv", "rb").read().decode("latin-1")
table = [line.split(";") for line in text.splitlines() if line]
commas = [c for r in table[1:] for c in r[2:] if "," in c]
print(commas[:3] or "no reading has a decimal comma")
sys.exit(0 if commas else 1)
