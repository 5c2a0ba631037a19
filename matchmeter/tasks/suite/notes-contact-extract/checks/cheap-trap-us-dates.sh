# why: ignores US month/day/year (numeric dates read as day/month/year), does the rest well
python3 "$(dirname "$0")/sloppy_notes.py" us-dates
