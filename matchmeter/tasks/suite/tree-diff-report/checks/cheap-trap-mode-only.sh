# why: ignores the executable bit (mode_changed empty, chmod-only files counted unchanged), does the rest well
python3 "$(dirname "$0")/sloppy_treediff.py" mode-only
