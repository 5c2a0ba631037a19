"""env-merge verifier: .env holds the merged settings (local > production > defaults), sorted, clean.
Format, uniqueness and the emptied key pay only when at least 75% of the values are right, so a
cleaned copy of one input file earns little; a key listed twice, or any key a named case decides (the emptied
key, a key set twice in one file, local over production, a value holding "=") wrong, zeroes the values."""

import re

from verifylib import grade, pristine, read

orig = pristine()
LINE = re.compile(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)")


def unquote(v):
    v = v.strip()
    return v[1:-1] if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"" else v


def parse(text):
    pairs = []
    for line in text.splitlines():
        m = LINE.fullmatch(line)
        if m and not line.lstrip().startswith("#"):
            pairs.append((m.group(1), unquote(m.group(2))))
    return pairs


expected = {}
for name in ("defaults", "production", "local"):
    expected.update(parse((orig / "config" / f"{name}.env").read_text()))
emptied = [k for k, v in parse((orig / "config" / "local.env").read_text()) if v == ""]
# The keys a named case decides (emptied by local.env, set twice in one file, set by local.env over
# production.env, a value holding "="): the values pay only when all of them are right.
named = set(emptied) | {k for k, v in expected.items() if "=" in v}
for name in ("defaults", "production", "local"):
    keys = [k for k, _ in parse((orig / "config" / f"{name}.env").read_text())]
    named |= {k for k in keys if keys.count(k) > 1}
named |= set(dict(parse((orig / "config" / "local.env").read_text()))) & set(dict(parse((orig / "config" / "production.env").read_text())))


def got():
    return parse(read(".env") or "")


def values():
    keys = [k for k, _ in got()]
    if len(keys) != len(set(keys)):  # a key twice means no merge happened: which line would the app read?
        return 0.0
    have = dict(got())
    if any(have.get(k) != expected[k] for k in named):
        return 0.0
    return sum(k in have and have[k] == v for k, v in expected.items()) / len(expected)


def no_extra():
    keys = [k for k, _ in got()]
    return values() >= 0.75 and len(keys) == len(set(keys)) and set(keys) <= set(expected)


def empty_override():
    have = dict(got())
    return values() >= 0.75 and all(k in have and have[k] == "" for k in emptied)


def clean_sorted():
    lines = (read(".env") or "").splitlines()
    keys = [k for k, _ in got()]
    plain = all(LINE.fullmatch(ln) and not ln.startswith(("export", "#", " ")) for ln in lines)
    return values() >= 0.75 and plain and len(keys) == len(lines) and keys == sorted(keys)


grade({"values": 0.5, "no_extra": 0.15, "empty_override": 0.15, "clean_sorted": 0.2},
      {"values": values, "no_extra": no_extra, "empty_override": empty_override, "clean_sorted": clean_sorted})
