# why: ignores a tab between account and amount (only two or more spaces separate them), does the rest well
python3 "$(dirname "$0")/sloppy_ledger.py" tab-separator
