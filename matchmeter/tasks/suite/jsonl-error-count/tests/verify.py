"""jsonl-error-count verifier: per-service counts of level == "error" events across all rotated logs."""

import gzip
import json
from collections import Counter

from verifylib import grade, pristine, read_json

orig = pristine() / "logs"
texts = [(orig / "events.jsonl").read_text(), (orig / "events.jsonl.1").read_text(),
         gzip.decompress((orig / "events.jsonl.2.gz").read_bytes()).decode()]
events = [json.loads(line) for text in texts for line in text.splitlines() if line.strip()]
services = {e["service"] for e in events}
expected = Counter(e["service"] for e in events if e["level"] == "error")


def report():
    return read_json("reports/errors_by_service.json", dict)


def valid():
    data = report()
    return bool(data) and all(isinstance(v, int) and not isinstance(v, bool) for v in data.values())


def counts():
    data = report()
    return sum(data.get(s) == n for s, n in expected.items()) / len(expected)


def clean_keys():
    # Services without errors may be listed with 0 or left out; nothing else may appear.
    data = report()
    return counts() > 0 and all(k in services and v == expected.get(k, 0) for k, v in data.items())


grade({"valid_report": 0.2, "error_counts": 0.55, "no_wrong_entries": 0.25},
      {"valid_report": valid, "error_counts": counts, "no_wrong_entries": clean_keys})
