# why: ignores "fewer than 10" (the view takes qty <= 10), does the rest well
python3 "$(dirname "$0")/sloppy_import.py" low-stock-boundary
