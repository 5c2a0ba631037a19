# why: ignores dates written with month names (ISO and numeric ones only), does the rest well
python3 "$(dirname "$0")/sloppy_notes.py" month-names
