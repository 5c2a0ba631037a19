# why: ignores the posting that leaves out its amount (read as 0), does the rest well
python3 "$(dirname "$0")/sloppy_ledger.py" elided-amount
