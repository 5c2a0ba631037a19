# why: ignores lower-casing (emails kept as written), does the rest well
python3 "$(dirname "$0")/sloppy_notes.py" email-case
