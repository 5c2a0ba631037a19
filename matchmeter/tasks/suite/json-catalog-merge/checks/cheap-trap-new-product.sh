# why: ignores changes for skus not in base.json (no new products), does the rest well
python3 "$(dirname "$0")/sloppy_catalog.py" new-product
