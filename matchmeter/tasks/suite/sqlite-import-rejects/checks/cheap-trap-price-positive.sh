# why: ignores "positive" (zero and negative prices not rejected: the CHECK drops them silently), does the rest well
python3 "$(dirname "$0")/sloppy_import.py" price-positive
