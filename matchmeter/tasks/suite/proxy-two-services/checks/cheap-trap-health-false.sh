# why: ignores "whether the backend's /health answers" (frontend /health always says backend true), does the rest well
python3 "$(dirname "$0")/sloppy_proxy.py" health-false
