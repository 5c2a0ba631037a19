# why: ignores "port from [backend]" / "[frontend]" (the port lines taken in the order the services are listed), does the rest well
python3 "$(dirname "$0")/sloppy_proxy.py" conf-sections
