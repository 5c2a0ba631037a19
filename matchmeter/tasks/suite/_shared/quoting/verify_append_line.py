"""append-line verifier: the payload line appended once, byte-exact, after the untouched original."""

from quoting import payload as seeded_payload
from verifylib import HERE, grade, pristine, read, seed

line = seeded_payload(HERE / "payload.txt", seed()).decode()
original = (pristine() / "conf" / "app.conf").read_text()


def added():
    """Lines after the original content, or None when the original is no longer a prefix."""
    text = read("conf/app.conf") or ""
    return text[len(original):].split("\n") if text.startswith(original) else None


def line_exact():
    return (read("conf/app.conf") or "").split("\n").count(line) == 1 and (added() or [None])[0] == line


def original_kept():
    return added() is not None and added() != [""]


def nothing_else():
    return line_exact() and added() == [line, ""]


grade({"line_exact": 0.6, "original_kept": 0.2, "nothing_else_added": 0.2},
      {"line_exact": line_exact, "original_kept": original_kept, "nothing_else_added": nothing_else})
