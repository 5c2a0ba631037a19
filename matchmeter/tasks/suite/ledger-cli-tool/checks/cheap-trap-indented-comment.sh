# why: ignores indented comment lines (only a ; or # at column 0 starts a comment), does the rest well
python3 "$(dirname "$0")/sloppy_ledger.py" indented-comment
