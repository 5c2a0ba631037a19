"""env-line verifier: .env read the way the literal loader reads it (value = everything after the first =)."""

from quoting import payload as seeded_payload
from verifylib import HERE, grade, pristine, read, seed

payload = seeded_payload(HERE / "payload.txt", seed()).decode()
original = (pristine() / ".env").read_text().splitlines()


def token_lines():
    return [line for line in read(".env").split("\n") if line.startswith("API_TOKEN=")]


def value_exact():
    return [line.split("=", 1)[1] for line in token_lines()] == [payload]


def single_line():
    return len(token_lines()) == 1 and token_lines() != [x for x in original if x.startswith("API_TOKEN=")]


def others_kept():
    got = [line for line in read(".env").split("\n") if line and not line.startswith("API_TOKEN=")]
    return value_exact() and got == [x for x in original if not x.startswith("API_TOKEN=")]


grade({"token_exact": 0.6, "one_token_line": 0.2, "other_lines_kept": 0.2},
      {"token_exact": value_exact, "one_token_line": single_line, "other_lines_kept": others_kept})
