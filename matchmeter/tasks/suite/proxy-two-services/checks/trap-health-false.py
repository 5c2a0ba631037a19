"""Trap probe: the backend runs on its own port, apart from the frontend's, so it can be down while the frontend
is up: the frontend's /health must then say backend false."""
import configparser
import sys

conf = configparser.ConfigParser()
conf.read("services.conf")
ports = [conf.get(s, "port", fallback="") for s in ("backend", "frontend")]
sys.exit(0 if all(p.isdigit() for p in ports) and ports[0] != ports[1] else "services.conf lacks two distinct ports")
