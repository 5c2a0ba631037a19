# why: ignores the adding up under --depth (names cut, each original account keeps its own line), does the rest well
python3 "$(dirname "$0")/sloppy_ledger.py" depth-merge
