# why: ignores one row per dependency (a row the CSV lists twice is listed twice), does the rest well
python3 "$(dirname "$0")/sloppy_deps.py" one-row
