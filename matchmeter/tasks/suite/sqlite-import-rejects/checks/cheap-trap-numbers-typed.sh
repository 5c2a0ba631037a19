# why: ignores "numbers must be stored as numbers" (columns declared TEXT, CSV text loaded), does the rest well
python3 "$(dirname "$0")/sloppy_import.py" numbers-typed
