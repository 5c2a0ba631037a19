"""Trap probe: the workspace starts fresh: service.conf names a port nothing listens on and there is no start.sh
yet, so only what start.sh starts at verify time will answer."""
import configparser
import socket
import sys
from pathlib import Path

conf = configparser.ConfigParser()
if not conf.read("service.conf") or not conf.get("service", "port", fallback="").isdigit():
    sys.exit("no port in service.conf")
if Path("start.sh").exists() or not Path("data/inventory.json").is_file():
    sys.exit("start.sh already exists or data/inventory.json is missing")
try:
    socket.create_connection(("127.0.0.1", int(conf["service"]["port"])), timeout=1).close()
    sys.exit("something already listens on the service port")
except OSError:
    pass
