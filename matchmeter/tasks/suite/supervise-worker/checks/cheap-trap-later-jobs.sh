# why: ignores "and so should jobs that arrive later" (the supervisor stops once queue/ is empty), does the rest well
python3 "$(dirname "$0")/sloppy_supervise.py" later-jobs
