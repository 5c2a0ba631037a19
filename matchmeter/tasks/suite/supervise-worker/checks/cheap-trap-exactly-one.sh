# why: ignores "keeps exactly one worker running" (start.sh also starts a worker right away), does the rest well
python3 "$(dirname "$0")/sloppy_supervise.py" exactly-one
