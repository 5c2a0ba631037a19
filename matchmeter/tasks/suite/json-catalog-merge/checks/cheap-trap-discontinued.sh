# why: ignores discontinued (the product kept), does the rest well
python3 "$(dirname "$0")/sloppy_catalog.py" discontinued
