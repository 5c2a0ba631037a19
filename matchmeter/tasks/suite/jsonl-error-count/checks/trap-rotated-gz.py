"""Trap probe: an error event in the gzipped rotated log (exit 0 iff so)."""
import gzip
import json
import sys

events = [json.loads(x) for x in gzip.open("logs/events.jsonl.2.gz", "rt") if x.strip()]
hits = [e["service"] for e in events if e["level"] == "error"]
print(hits[:5] or "no error in the gzipped log")
sys.exit(0 if hits else 1)
