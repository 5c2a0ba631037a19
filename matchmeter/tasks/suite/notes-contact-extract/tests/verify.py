"""notes-contact-extract verifier: per-file emails, E.164 phones and ISO dates against the generator's truth."""

import json
import os
import tempfile
from pathlib import Path

from verifylib import grade, pristine, read_json

# setup.sh writes the entities it planted to MM_TRUTH_OUT (set only here, outside the workspace).
truth_file = Path(tempfile.mkdtemp(prefix="mm-truth-")) / "truth.json"
os.environ["MM_TRUTH_OUT"] = str(truth_file)
pristine()
truth = json.loads(truth_file.read_text())


def doc():
    return read_json("extracted.json", dict)


def structure():
    data = doc()
    return set(data) == set(truth) and all(
        isinstance(v, dict) and all(isinstance(v.get(k), list) for k in ("emails", "phones", "dates")) for v in data.values())


def kind(name):
    def check():
        data = doc()
        scores = []
        for fname, planted in truth.items():
            want = planted[name]
            got = (data.get(fname) or {}).get(name) or []
            exact = got == want  # sorted, unique, normalised
            overlap = len(set(got) & set(want)) / len(set(got) | set(want)) if got or want else 1.0
            scores.append(1.0 if exact else 0.5 * overlap)
        return sum(scores) / len(scores)
    return check


grade({"structure": 0.1, "emails": 0.3, "phones": 0.3, "dates": 0.3},
      {"structure": structure, "emails": kind("emails"), "phones": kind("phones"), "dates": kind("dates")})
