# why: ignores "empty optional fields go in as NULL" (empty strings loaded), does the rest well
python3 "$(dirname "$0")/sloppy_import.py" empty-null
