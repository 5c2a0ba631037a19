"""printf-format verifier: conf/notify.fmt holds the payload format string, and bin/notify prints what printf
with that format prints (compared with bash's own printf fed the payload as an exact argv element)."""

import shutil
import subprocess

from quoting import payload as seeded_payload
from verifylib import APP, HERE, grade, pristine, read, seed

fmt = seeded_payload(HERE / "payload.txt", seed())
SAMPLES = [("alice", "3"), ("bob", "42")]


def expected(name, count):
    proc = subprocess.run(["bash", "-c", 'printf -- "$1\\n" "$2" "$3"', "_", fmt.decode(), name, count],
                          capture_output=True, timeout=30)
    return proc.stdout


def notify(name, count):
    """The starting bin/notify (rebuilt by setup.sh, never the workspace copy) run on the workspace's format."""
    home = pristine()
    shutil.copyfile(APP / "conf" / "notify.fmt", home / "conf" / "notify.fmt")
    proc = subprocess.run(["bash", str(home / "bin" / "notify"), name, count], capture_output=True, timeout=30)
    return proc.stdout


def stored():
    return read("conf/notify.fmt", "b").rstrip(b"\n") == fmt


def output():
    return sum(notify(*s) == expected(*s) for s in SAMPLES) / len(SAMPLES)


grade({"format_stored": 0.5, "output_matches": 0.5}, {"format_stored": stored, "output_matches": output})
