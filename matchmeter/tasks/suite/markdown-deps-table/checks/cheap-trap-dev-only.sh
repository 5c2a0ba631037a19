# why: ignores the dev-only rows (every row listed), does the rest well
python3 "$(dirname "$0")/sloppy_deps.py" dev-only
