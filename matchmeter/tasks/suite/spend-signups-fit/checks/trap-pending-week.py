"""Trap: some week's signups are "pending"."""
import csv
import sys

signups = [r["signups"] for r in csv.DictReader(open("data/campaign_weeks.csv", newline=""))]
if "pending" not in signups:
    sys.exit("no week with pending signups")
