"""Trap: some week has blank signups."""
import csv
import sys

signups = [r["signups"] for r in csv.DictReader(open("data/campaign_weeks.csv", newline=""))]
if not ("" in signups):
    sys.exit("missing: some week has blank signups")
