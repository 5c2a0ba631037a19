# why: ignores "whenever the current one exits, for whatever reason" (only the deliberate exit code 3 restarts), does the rest well
python3 "$(dirname "$0")/sloppy_supervise.py" restart-any-exit
