"""Trap probe: two services to start and nothing running them yet (no start.sh, both ports free): the verifier
runs `bash start.sh` and waits for it to return, so a start.sh that keeps either server in the foreground never
gets that far."""
import configparser
import socket
import sys
from pathlib import Path

conf = configparser.ConfigParser()
conf.read("services.conf")
ports = [conf.get(s, "port", fallback="") for s in ("backend", "frontend")]
if not all(p.isdigit() for p in ports) or ports[0] == ports[1]:
    sys.exit("services.conf lacks two distinct ports")
if Path("start.sh").exists():
    sys.exit("start.sh already exists")
for port in ports:
    try:
        socket.create_connection(("127.0.0.1", int(port)), timeout=1).close()
        sys.exit(f"something already listens on port {port}")
    except OSError:
        pass
