# why: ignores "rounded to 2 decimals" (the float sum written as Python prints it), does the rest well
python3 "$(dirname "$0")/sloppy_revenue.py" rounded
