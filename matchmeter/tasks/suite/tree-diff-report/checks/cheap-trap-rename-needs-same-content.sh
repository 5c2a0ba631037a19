# why: ignores "exactly the same content" (a move is a file of the same name elsewhere), does the rest well
python3 "$(dirname "$0")/sloppy_treediff.py" rename-needs-same-content
