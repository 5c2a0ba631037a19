# why: ignores "the sum ... over its rows" (one joined item row per order), does the rest well
python3 "$(dirname "$0")/sloppy_totals.py" multi-item
