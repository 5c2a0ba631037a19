# why: ignores "if the backend can't be reached, /api/... answers 502" (the connection error is not caught), does the rest well
python3 "$(dirname "$0")/sloppy_proxy.py" backend-down
