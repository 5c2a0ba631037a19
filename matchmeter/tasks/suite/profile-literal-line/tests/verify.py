"""profile-literal-line verifier: the two literal lines appended byte-exact after the untouched original."""

from verifylib import HERE, grade, pristine, read

original = (pristine() / "config" / "profile.env").read_text()
line1, line2 = (HERE / "expected_lines.txt").read_text().splitlines()


def tail():
    """The lines added after the original content, or None when the original is not a prefix."""
    text = read("config/profile.env") or ""
    return text[len(original):].split("\n") if text.startswith(original) else None


def lines():
    return (read("config/profile.env") or "").split("\n")


def backup():
    added = tail()
    return lines().count(line1) == 1 and added is not None and added[:1] == [line1]


def ps1():
    added = tail()
    return lines().count(line2) == 1 and added is not None and added[1:2] == [line2]


def rest():
    added = tail()
    return (backup() or ps1()) and added is not None and [x for x in added if x] == [line1, line2]


grade({"backup_line": 0.4, "ps1_line": 0.4, "rest_unchanged": 0.2},
      {"backup_line": backup, "ps1_line": ps1, "rest_unchanged": rest})
