# why: ignores stock_delta (stock left as it was), does the rest well
python3 "$(dirname "$0")/sloppy_catalog.py" stock-delta
