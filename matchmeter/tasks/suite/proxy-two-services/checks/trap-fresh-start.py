"""Trap probe: the workspace starts fresh: services.conf names two ports nothing listens on, and there is no
start.sh or run/ yet, so only what start.sh starts at verify time will answer."""
import configparser
import socket
import sys
from pathlib import Path

conf = configparser.ConfigParser()
conf.read("services.conf")
ports = [conf.get(s, "port", fallback="") for s in ("backend", "frontend")]
if not all(p.isdigit() for p in ports):
    sys.exit("services.conf lacks a [backend] or [frontend] port")
if Path("start.sh").exists() or Path("run").exists():
    sys.exit("start.sh or run/ already exists")
for port in ports:
    try:
        socket.create_connection(("127.0.0.1", int(port)), timeout=1).close()
        sys.exit(f"something already listens on port {port}")
    except OSError:
        pass
