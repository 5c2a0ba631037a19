# why: ignores unknown names and macros (passed through), does the rest well
python3 "$(dirname "$0")/sloppy_cron.py" unknown-name
