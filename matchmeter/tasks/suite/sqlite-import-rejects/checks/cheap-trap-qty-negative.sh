# why: ignores "non-negative" (negative quantities not rejected: the CHECK drops them silently), does the rest well
python3 "$(dirname "$0")/sloppy_import.py" qty-negative
