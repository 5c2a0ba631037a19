# why: ignores "starts both in the background and returns" (the frontend runs in the foreground), does the rest well
python3 "$(dirname "$0")/sloppy_proxy.py" returns-quickly
