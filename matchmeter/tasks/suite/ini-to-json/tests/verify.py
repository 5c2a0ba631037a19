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


# The key layout is visible in the INI file itself: it is paid in proportion to the values converted right.
grade({"valid_json": 0.1, "sections": 0.2, "typed_values": 0.5, "no_extra_keys": 0.2},
      {"valid_json": valid, "sections": lambda: sections() * values(), "typed_values": values,
       "no_extra_keys": lambda: no_extras() * values()})
