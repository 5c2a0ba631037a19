# why: ignores YYYY-MM-DD's zero padding (3/5/2024 becomes 2024-3-5), does the rest well
python3 "$(dirname "$0")/sloppy_notes.py" zero-pad
