"""awk-literal verifier: `awk -f tools/stamp.awk FILE` prints the payload line, then FILE unchanged (two inputs)."""

import subprocess
import tempfile
from pathlib import Path

from quoting import payload as seeded_payload
from verifylib import APP, HERE, grade, pristine, seed

header = seeded_payload(HERE / "payload.txt", seed())
log = (pristine() / "data" / "log.txt").read_bytes()
extra = b"a \"quoted\" line with $HOME and \\ and %d\n\nlast\n"


def run(data):
    with tempfile.NamedTemporaryFile(suffix=".txt") as f:
        Path(f.name).write_bytes(data)
        proc = subprocess.run(["awk", "-f", str(APP / "tools" / "stamp.awk"), f.name], capture_output=True,
                              timeout=30)
    return proc.stdout if proc.returncode == 0 else None


def runs():
    return run(log) is not None


def header_exact():
    return all(run(d).split(b"\n", 1)[0] == header for d in (log, extra))


def body():
    return header_exact() and all(run(d).split(b"\n", 1)[1] == d for d in (log, extra))


grade({"program_runs": 0.1, "header_exact": 0.6, "lines_passed_through": 0.3},
      {"program_runs": runs, "header_exact": header_exact, "lines_passed_through": body})
