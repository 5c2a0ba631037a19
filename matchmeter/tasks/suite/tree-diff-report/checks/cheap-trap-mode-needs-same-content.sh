# why: ignores "same path and content" (a modified file whose mode changed also listed in mode_changed), does the rest well
python3 "$(dirname "$0")/sloppy_treediff.py" mode-needs-same-content
