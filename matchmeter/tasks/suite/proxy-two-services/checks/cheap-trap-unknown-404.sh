# why: ignores "unknown id -> 404" (the backend answers 200 with an error body), does the rest well
python3 "$(dirname "$0")/sloppy_proxy.py" unknown-404
