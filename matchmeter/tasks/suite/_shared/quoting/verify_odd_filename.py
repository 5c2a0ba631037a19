"""odd-filename verifier: inbox/ holds one new empty regular file named exactly the payload; nothing else changed."""

import os

from quoting import payload as seeded_payload
from verifylib import APP, HERE, grade, pristine, seed

name = os.fsdecode(seeded_payload(HERE / "payload.txt", seed()))
inbox = APP / "inbox"
before = {p.name: p.read_bytes() for p in (pristine() / "inbox").iterdir()}


def entries():
    return {p.name for p in inbox.iterdir()}


def created():
    return name in entries()


def empty_file():
    path = inbox / name
    return path.is_file() and not path.is_symlink() and path.stat().st_size == 0


def nothing_else():
    kept = all((inbox / n).read_bytes() == data for n, data in before.items())
    return created() and kept and entries() == set(before) | {name}


grade({"file_created": 0.6, "empty_regular_file": 0.1, "nothing_else_changed": 0.3},
      {"file_created": created, "empty_regular_file": empty_file, "nothing_else_changed": nothing_else})
