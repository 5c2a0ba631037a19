"""Trap probe: the backend has an error status to pass through: /api/quotes/nope-404 reaches a backend that
holds no such quote (its 404 must come back unchanged, not as a 502 or a 200), and quotes to pass as 200."""
import configparser
import json
import sys
from pathlib import Path

conf = configparser.ConfigParser()
conf.read("services.conf")
if not conf.get("backend", "port", fallback="").isdigit() or not conf.get("frontend", "port", fallback="").isdigit():
    sys.exit("services.conf lacks the two ports")
try:
    ids = [q["id"] for q in json.loads(Path("data/quotes.json").read_text())]
except (OSError, ValueError, KeyError, TypeError):
    sys.exit("no readable data/quotes.json with ids")
sys.exit(0 if len(ids) >= 3 and "nope-404" not in ids else "fewer than 3 quotes, or nope-404 is a quote")
