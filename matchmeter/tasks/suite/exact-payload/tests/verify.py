"""exact-payload verifier: out/payload.sh compared byte for byte (sha256), then line by line."""

import hashlib

from verifylib import HERE, grade, read

text = (HERE / "expected_payload.txt").read_bytes()
expected_lines = text.decode().split("\n")[:-1]


def exact():
    data = read("out/payload.sh", "b")
    return data is not None and hashlib.sha256(data).hexdigest() == hashlib.sha256(text).hexdigest()


def lines():
    # Only newline-ended lines count: "every line (the last one too) ending with a single newline".
    got = read("out/payload.sh", "b").decode("utf-8", errors="replace").split("\n")[:-1]
    return sum(a == b for a, b in zip(got, expected_lines)) / len(expected_lines)


def newline_end():
    data = read("out/payload.sh", "b")
    return lines() >= 0.5 and data.endswith(b"\n") and not data.endswith(b"\n\n")


grade({"exact_bytes": 0.6, "lines_match": 0.3, "single_final_newline": 0.1},
      {"exact_bytes": exact, "lines_match": lines, "single_final_newline": newline_end})
