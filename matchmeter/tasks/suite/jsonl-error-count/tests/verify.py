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


def traps():
    """The named traps (task.toml) all handled: every service with an error in the gzipped log, or with a
    non-error event whose ctx.level is "error", has its exact count. A sloppy answer fails one and is paid nothing."""
    gz = [json.loads(line) for line in texts[2].splitlines() if line.strip()]
    hit = {e["service"] for e in gz if e["level"] == "error"}
    hit |= {e["service"] for e in events if e["level"] != "error" and (e.get("ctx") or {}).get("level") == "error"}
    try:
        data = report()
        return all(data.get(s, 0) == expected.get(s, 0) for s in hit)
    except Exception:  # noqa: BLE001 - no readable report handles no trap
        return False


def gated(check):
    return lambda: check() if traps() else 0.0


grade({"valid_report": 0.2, "error_counts": 0.55, "no_wrong_entries": 0.25},
      {"valid_report": gated(valid), "error_counts": gated(counts), "no_wrong_entries": gated(clean_keys)})
