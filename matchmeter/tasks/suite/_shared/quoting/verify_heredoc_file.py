"""heredoc-file verifier: snippets/block.txt holds the payload lines, each ending in a newline, byte for byte."""

from quoting import payload as seeded_payload
from verifylib import HERE, grade, pristine, read, seed

expected = seeded_payload(HERE / "payload.txt", seed()) + b"\n"
index = (pristine() / "snippets" / "INDEX").read_bytes()


def exact():
    return read("snippets/block.txt", "b") == expected


def lines():
    got, want = read("snippets/block.txt", "b").split(b"\n"), expected.split(b"\n")
    return sum(a == b for a, b in zip(got, want, strict=False)) / max(len(got), len(want))


def index_kept():
    return exact() and read("snippets/INDEX", "b") == index


grade({"exact_bytes": 0.6, "lines_match": 0.3, "index_unchanged": 0.1},
      {"exact_bytes": exact, "lines_match": lines, "index_unchanged": index_kept})
