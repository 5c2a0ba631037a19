# why: ignores that revenue must sort as a number (the formatted column sorted as text), does the rest well
python3 "$(dirname "$0")/sloppy_revenue.py" numeric-sort
