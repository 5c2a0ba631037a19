# why: ignores the order of the changes (one folded change per sku, the later one's fields win), does the rest well
python3 "$(dirname "$0")/sloppy_catalog.py" in-order
