# why: ignores "so we can replay it" (the backfill run by hand on the live db, not in the file), does the rest well
python3 "$(dirname "$0")/sloppy_totals.py" replayable
