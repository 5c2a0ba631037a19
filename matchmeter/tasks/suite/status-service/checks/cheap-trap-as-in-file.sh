# why: ignores "as it appears in the file" (each entry rebuilt from sku, name, qty and price), does the rest well
python3 "$(dirname "$0")/sloppy_status.py" as-in-file
