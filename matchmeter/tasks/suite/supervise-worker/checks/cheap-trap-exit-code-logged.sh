# why: ignores "with the worker's exit code in it" (the log line says only that it exited), does the rest well
python3 "$(dirname "$0")/sloppy_supervise.py" exit-code-logged
