"""write-bytes verifier: out/message.txt holds the payload plus one newline, byte for byte."""

from quoting import payload as seeded_payload
from verifylib import HERE, grade, pristine, read, seed

payload = seeded_payload(HERE / "payload.txt", seed())
expected = payload + b"\n"
keep = (pristine() / "out" / "KEEP.md").read_bytes()


def exact():
    return read("out/message.txt", "b") == expected


def lines():
    got = read("out/message.txt", "b").split(b"\n")
    want = expected.split(b"\n")
    return sum(a == b for a, b in zip(got, want, strict=False)) / max(len(got), len(want))


def keep_unchanged():
    return exact() and read("out/KEEP.md", "b") == keep


grade({"exact_bytes": 0.6, "lines_match": 0.3, "notes_unchanged": 0.1},
      {"exact_bytes": exact, "lines_match": lines, "notes_unchanged": keep_unchanged})
