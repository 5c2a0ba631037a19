# why: ignores names with spaces (paths word-split as in for f in $(find ...)), does the rest well
python3 "$(dirname "$0")/sloppy_treediff.py" space-in-name
