"""Trap probe: nothing runs the service yet (no start.sh, the port free): the verifier runs `bash start.sh` and
waits for it to return, so a start.sh that keeps the server in the foreground never gets that far."""
import configparser
import socket
import sys
from pathlib import Path

conf = configparser.ConfigParser()
if not conf.read("service.conf") or not conf.get("service", "port", fallback="").isdigit():
    sys.exit("no port in service.conf")
if Path("start.sh").exists():
    sys.exit("start.sh already exists")
try:
    socket.create_connection(("127.0.0.1", int(conf["service"]["port"])), timeout=1).close()
    sys.exit("something already listens on the service port")
except OSError:
    pass
