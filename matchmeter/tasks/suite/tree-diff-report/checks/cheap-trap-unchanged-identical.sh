# why: ignores "identical" (unchanged counts same-content files whatever their mode), does the rest well
python3 "$(dirname "$0")/sloppy_treediff.py" unchanged-identical
