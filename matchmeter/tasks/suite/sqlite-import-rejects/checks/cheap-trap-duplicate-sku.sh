# why: ignores "keep the first" (a repeated sku keeps its last row), does the rest well
python3 "$(dirname "$0")/sloppy_import.py" duplicate-sku
