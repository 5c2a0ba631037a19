# why: ignores day-of-week 7 (kept as 7), does the rest well
python3 "$(dirname "$0")/sloppy_cron.py" weekday-7
