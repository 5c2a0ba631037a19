# why: ignores @macros (kept as written), does the rest well
python3 "$(dirname "$0")/sloppy_cron.py" macro
