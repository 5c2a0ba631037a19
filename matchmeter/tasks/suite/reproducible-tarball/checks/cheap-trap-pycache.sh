# why: ignores "leave __pycache__ directories out" (they are packed), does the rest well
python3 "$(dirname "$0")/sloppy_tarball.py" pycache
