"""Trap: incomes are unequal enough that the Gini as a fraction differs from a percentage (some spread)."""
import csv
import sys

xs = [float(v) for r in csv.DictReader(open("data/households.csv", newline=""))
      if (v := r["annual_income"].strip()).isdigit()]
if len(xs) < 10 or max(xs) <= 2 * min(xs):
    sys.exit("incomes too few or too even")
