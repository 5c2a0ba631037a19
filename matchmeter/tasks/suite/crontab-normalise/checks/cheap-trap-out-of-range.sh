# why: ignores values out of range (only field counts checked), does the rest well
python3 "$(dirname "$0")/sloppy_cron.py" out-of-range
