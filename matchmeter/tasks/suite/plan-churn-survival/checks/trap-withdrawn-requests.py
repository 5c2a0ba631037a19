"""Trap: each plan has withdrawn cancellation requests."""
import csv
import datetime as dt
import sys
from collections import defaultdict

D = dt.date.fromisoformat
cancels = list(csv.DictReader(open("data/cancellations.csv", newline="")))
subs = list(csv.DictReader(open("data/subscriptions.csv", newline="")))
end = {r["subscription_id"]: D(r["cancelled_on"]) for r in cancels if r["status"] == "effective"}
plans = {r["plan"] for r in subs}
plan = {r["subscription_id"]: r["plan"] for r in subs}
bad = sorted(plans - {plan[r["subscription_id"]] for r in cancels if r["status"] == "withdrawn"})
if bad:
    sys.exit(f"not so: {bad}")
