# why: ignores prices that are not numbers (N/A, 12,50 loaded as text), does the rest well
python3 "$(dirname "$0")/sloppy_import.py" price-not-number
