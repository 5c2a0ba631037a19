# why: ignores the variable assignments (dropped), does the rest well
python3 "$(dirname "$0")/sloppy_cron.py" variables
