# why: ignores "starts the service in the background and returns" (start.sh runs the server in the foreground), does the rest well
python3 "$(dirname "$0")/sloppy_status.py" returns-quickly
