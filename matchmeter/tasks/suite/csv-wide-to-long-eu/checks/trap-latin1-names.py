"""Trap probe: a station name with a non-ASCII (Latin-1) character."""
import sys

text = open("data/rainfall.csv", "rb").read().decode("latin-1")
table = [line.split(";") for line in text.splitlines() if line]
names = [r[1] for r in table[1:] if not r[1].isascii()]
print(names or "every name is ASCII")
sys.exit(0 if names else 1)
