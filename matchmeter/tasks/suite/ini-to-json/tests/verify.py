"""ini-to-json verifier: sections, option names and typed values of conf/app.json."""

import json
import re

from verifylib import grade, pristine, read

expected, section = {}, None
for line in (pristine() / "conf" / "app.ini").read_text().splitlines():
    line = line.strip()
    if not line or line.startswith(";"):
        continue
    if line.startswith("["):
        section = line.strip("[]")
        expected[section] = {}
        continue
    key, value = (part.strip() for part in line.split("=", 1))
    if value in ("true", "false"):
        expected[section][key] = value == "true"
    elif re.fullmatch(r"-?\d+", value):
        expected[section][key] = int(value)
    elif re.fullmatch(r"-?\d+\.\d+", value):
        expected[section][key] = float(value)
    else:
        expected[section][key] = value


def doc():
    return json.loads(read("conf/app.json"))


def same(a, b):
    return type(a) is type(b) and a == b or (type(b) is float and type(a) is int and a == b)


def valid():
    return isinstance(doc(), dict)


def sections():
    return set(doc()) == set(expected) and all(isinstance(v, dict) for v in doc().values())


def values():
    d = doc()
    pairs = [(s, k) for s in expected for k in expected[s]]
    return sum(same(d.get(s, {}).get(k), expected[s][k]) for s, k in pairs) / len(pairs)


def no_extras():
    d = doc()
    return sections() and all(set(d[s]) == set(expected[s]) for s in expected)


def lookalike(value):
    """A string Python's int() or float() accepts although it is no integer or decimal number."""
    for conv in (int, float):
        try:
            conv(value)
            return True
        except ValueError:
            pass
    return False


def traps():
    """The named traps (task.toml) all handled: every integer, decimal and boolean typed, every string that
    only looks numeric kept a string. A sloppy answer fails one and is paid nothing."""
    try:
        d = doc()
        return all(same(d.get(s, {}).get(k), v) for s in expected for k, v in expected[s].items()
                   if not isinstance(v, str) or lookalike(v))
    except Exception:  # noqa: BLE001 - no readable JSON handles no trap
        return False


def gated(check):
    return lambda: check() if traps() else 0.0


# The key layout is visible in the INI file itself: it is paid in proportion to the values converted right.
grade({"valid_json": 0.1, "sections": 0.2, "typed_values": 0.5, "no_extra_keys": 0.2},
      {"valid_json": gated(valid), "sections": gated(lambda: sections() * values()), "typed_values": gated(values),
       "no_extra_keys": gated(lambda: no_extras() * values())})
