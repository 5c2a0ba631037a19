"""Trap: households without an income, both blank and "NA", enough (>= 20) to move the top 10% if counted."""
import csv
import sys

kinds = [r["annual_income"].strip() for r in csv.DictReader(open("data/households.csv", newline=""))]
if not {"", "NA"} <= set(kinds) or kinds.count("") + kinds.count("NA") < 20:
    sys.exit(f"too few missing incomes: {kinds.count('')} blank, {kinds.count('NA')} NA")
