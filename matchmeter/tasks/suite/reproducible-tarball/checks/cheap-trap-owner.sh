# why: ignores "owner and group 0" (the sources' own owner), does the rest well
python3 "$(dirname "$0")/sloppy_tarball.py" owner
