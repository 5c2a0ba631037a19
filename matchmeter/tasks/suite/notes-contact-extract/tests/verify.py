"""notes-contact-extract verifier: per-file emails, E.164 phones and ISO dates against the generator's truth.

Strict on the named cases (every seed plants them, task.toml's traps): emails, phones and dates pay only when
every list holding a planted case (a title-case or [at]/[dot] email, a number written with its country code and
again without, a US month/day/year whose day is also a month, a month-name date with a one-digit day) is exact."""

import json
import os
import tempfile
from pathlib import Path

from verifylib import grade, pristine, read_json

# setup.sh writes the entities it planted to MM_TRUTH_OUT (set only here, outside the workspace):
# {"files": {name: {kind: sorted list}}, "named": [[name, kind], ...] (the lists holding a planted case)}.
truth_file = Path(tempfile.mkdtemp(prefix="mm-truth-")) / "truth.json"
os.environ["MM_TRUTH_OUT"] = str(truth_file)
pristine()
planted_truth = json.loads(truth_file.read_text())
truth, named = planted_truth["files"], planted_truth["named"]


def doc():
    return read_json("extracted.json", dict)


def structure():
    data = doc()
    return set(data) == set(truth) and all(
        isinstance(v, dict) and all(isinstance(v.get(k), list) for k in ("emails", "phones", "dates")) for v in data.values())


def named_cases():
    data = doc()
    return all((data.get(fname) or {}).get(name) == truth[fname][name] for fname, name in named)


def kind(name):
    def check():
        if not named_cases():
            return 0.0
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
