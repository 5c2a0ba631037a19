# why: ignores "the port given in service.conf" (the first line mentioning a port, comments included), does the rest well
python3 "$(dirname "$0")/sloppy_status.py" conf-port
