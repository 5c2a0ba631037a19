# why: ignores the header line rule (a transaction's errors reported on its last posting), does the rest well
python3 "$(dirname "$0")/sloppy_ledger.py" header-line
