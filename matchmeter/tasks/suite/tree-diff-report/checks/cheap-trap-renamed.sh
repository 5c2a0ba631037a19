# why: ignores "files that moved" (a move listed as removed + added, renamed empty), does the rest well
python3 "$(dirname "$0")/sloppy_treediff.py" renamed
