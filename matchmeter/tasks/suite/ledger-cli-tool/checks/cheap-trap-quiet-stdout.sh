# why: ignores print nothing on stdout (balance prints what it parsed before the errors), does the rest well
python3 "$(dirname "$0")/sloppy_ledger.py" quiet-stdout
