# why: ignores "0 for an order without items" (a bare SUM leaves them NULL), does the rest well
python3 "$(dirname "$0")/sloppy_totals.py" no-items
