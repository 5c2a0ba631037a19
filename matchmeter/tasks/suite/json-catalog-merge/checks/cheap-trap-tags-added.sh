# why: ignores that tags are added (a change's tags replace the old ones), does the rest well
python3 "$(dirname "$0")/sloppy_catalog.py" tags-added
