# why: ignores the sort by package name (rows in the CSV's order), does the rest well
python3 "$(dirname "$0")/sloppy_deps.py" sorted
