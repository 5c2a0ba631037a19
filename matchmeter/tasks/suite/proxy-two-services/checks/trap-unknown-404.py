"""Trap probe: data/quotes.json has unique ids and none is the unknown id the verifier asks for (nope-404), so the
backend must answer it with a 404."""
import json
import sys
from pathlib import Path

try:
    ids = [q["id"] for q in json.loads(Path("data/quotes.json").read_text())]
except (OSError, ValueError, KeyError, TypeError):
    sys.exit("no readable data/quotes.json with ids")
sys.exit(0 if ids and len(set(ids)) == len(ids) and "nope-404" not in ids else "quote ids missing, repeated or include nope-404")
