# why: ignores "the pid of the worker it just started ... each time" (run/worker.pid written for the first worker only), does the rest well
python3 "$(dirname "$0")/sloppy_supervise.py" worker-pid-each-time
