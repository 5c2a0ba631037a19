# why: ignores the source_date_epoch mtime (the files' own times), does the rest well
python3 "$(dirname "$0")/sloppy_tarball.py" mtime
