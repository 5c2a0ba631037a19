# why: ignores the two-decimal limit on amounts (12.345 accepted), does the rest well
python3 "$(dirname "$0")/sloppy_ledger.py" bad-amount
