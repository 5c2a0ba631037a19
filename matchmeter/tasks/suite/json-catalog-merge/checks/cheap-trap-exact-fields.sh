# why: ignores exactly the fields (every field base.json or a new product carries is kept), does the rest well
python3 "$(dirname "$0")/sloppy_catalog.py" exact-fields
