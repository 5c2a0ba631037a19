# why: ignores the hunk that "won't apply cleanly" (patch -f, its .rej deleted), does the rest well
python3 "$(dirname "$0")/sloppy_patch.py" rejected-hunk
