"""Trap probe: a non-error event whose ctx.level is "error" (exit 0 iff so)."""
import gzip
import json
import sys

lines = list(open("logs/events.jsonl")) + list(open("logs/events.jsonl.1")) + list(gzip.open("logs/events.jsonl.2.gz", "rt"))
hits = [e for e in (json.loads(x) for x in lines if x.strip())
        if e["level"] != "error" and (e.get("ctx") or {}).get("level") == "error"]
print(hits[:2] or "no non-error event with ctx.level error")
sys.exit(0 if hits else 1)
