# why: ignores "the backend's status code and body unchanged" (any backend error, its 404 included, becomes 502), does the rest well
python3 "$(dirname "$0")/sloppy_proxy.py" status-unchanged
