# why: ignores duplicates across formats (the same number written twice is listed twice), does the rest well
python3 "$(dirname "$0")/sloppy_notes.py" phone-duplicates
