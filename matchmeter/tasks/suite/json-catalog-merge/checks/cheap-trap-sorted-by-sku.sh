# why: ignores the sort by sku (base.json's order, new products at the end), does the rest well
python3 "$(dirname "$0")/sloppy_catalog.py" sorted-by-sku
