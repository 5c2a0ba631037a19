# why: ignores "only paid orders count" (refunded and pending orders counted too), does the rest well
python3 "$(dirname "$0")/sloppy_revenue.py" paid-only
