# why: ignores tabs between fields (only runs of spaces squeezed), does the rest well
python3 "$(dirname "$0")/sloppy_cron.py" tab-separated
