# why: ignores the column names asked for (the CSV's own name, version, license), does the rest well
python3 "$(dirname "$0")/sloppy_deps.py" column-names
