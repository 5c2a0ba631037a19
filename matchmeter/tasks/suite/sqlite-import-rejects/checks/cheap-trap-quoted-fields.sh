# why: ignores CSV quoting in rejects.csv (fields joined with commas), does the rest well
python3 "$(dirname "$0")/sloppy_import.py" quoted-fields
