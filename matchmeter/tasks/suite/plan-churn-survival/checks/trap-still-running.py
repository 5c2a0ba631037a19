"""Trap: each plan has subscriptions without an effective cancellation."""
import csv
import datetime as dt
import sys
from collections import defaultdict

D = dt.date.fromisoformat
cancels = list(csv.DictReader(open("data/cancellations.csv", newline="")))
subs = list(csv.DictReader(open("data/subscriptions.csv", newline="")))
end = {r["subscription_id"]: D(r["cancelled_on"]) for r in cancels if r["status"] == "effective"}
plans = {r["plan"] for r in subs}
bad = sorted(plans - {r["plan"] for r in subs if r["subscription_id"] not in end})
if bad:
    sys.exit(f"not so: {bad}")
