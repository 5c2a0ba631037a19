# why: ignores "no timestamp or file name in the gzip header" (plain gzip of the .tar), does the rest well
python3 "$(dirname "$0")/sloppy_tarball.py" gzip-header
