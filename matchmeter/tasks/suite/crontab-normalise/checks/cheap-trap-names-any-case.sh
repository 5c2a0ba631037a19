# why: ignores "in any case" (only lower-case names known), does the rest well
python3 "$(dirname "$0")/sloppy_cron.py" names-any-case
