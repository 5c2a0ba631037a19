# why: ignores "the supplier must exist" (unknown supplier ids loaded), does the rest well
python3 "$(dirname "$0")/sloppy_import.py" unknown-supplier
