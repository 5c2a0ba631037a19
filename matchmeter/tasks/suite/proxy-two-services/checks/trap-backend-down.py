"""Trap probe: backend and frontend have distinct ports with nothing on them yet, so the verifier can kill the
backend alone and the frontend must then answer /api/... with 502."""
import configparser
import socket
import sys

conf = configparser.ConfigParser()
conf.read("services.conf")
ports = [conf.get(s, "port", fallback="") for s in ("backend", "frontend")]
if not all(p.isdigit() for p in ports) or ports[0] == ports[1]:
    sys.exit("services.conf lacks two distinct ports")
try:
    socket.create_connection(("127.0.0.1", int(ports[0])), timeout=1).close()
    sys.exit("something already listens on the backend port")
except OSError:
    pass
