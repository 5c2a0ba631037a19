# why: ignores "entries sorted by name" (directory order), does the rest well
python3 "$(dirname "$0")/sloppy_tarball.py" sort-by-name
