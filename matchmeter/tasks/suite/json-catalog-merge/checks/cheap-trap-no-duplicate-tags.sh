# why: ignores (no duplicates) (a change's tags appended even when the product has them), does the rest well
python3 "$(dirname "$0")/sloppy_catalog.py" no-duplicate-tags
