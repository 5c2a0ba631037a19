# why: ignores account names with spaces (a posting split at its first blank), does the rest well
python3 "$(dirname "$0")/sloppy_ledger.py" account-spaces
