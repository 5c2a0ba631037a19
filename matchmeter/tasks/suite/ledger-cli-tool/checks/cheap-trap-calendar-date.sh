# why: ignores a real calendar date (any YYYY-MM-DD shape is a header), does the rest well
python3 "$(dirname "$0")/sloppy_ledger.py" calendar-date
