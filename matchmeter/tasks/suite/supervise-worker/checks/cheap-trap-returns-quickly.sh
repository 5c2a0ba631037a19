# why: ignores "starts the supervisor in the background and returns" (start.sh runs it in the foreground), does the rest well
python3 "$(dirname "$0")/sloppy_supervise.py" returns-quickly
