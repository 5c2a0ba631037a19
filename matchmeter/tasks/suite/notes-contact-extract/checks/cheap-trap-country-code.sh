# why: ignores E.164 for numbers written with their country code (+1 put before every digit written), does the rest well
python3 "$(dirname "$0")/sloppy_notes.py" country-code
