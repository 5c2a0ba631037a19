"""json-value verifier: .app.motd equals the payload (a JSON string), every other value unchanged."""

import json

from quoting import payload as seeded_payload
from verifylib import HERE, grade, pristine, read, seed

payload = seeded_payload(HERE / "payload.txt", seed()).decode()
orig = json.loads((pristine() / "config" / "settings.json").read_text())


def data():
    return json.loads(read("config/settings.json"))


def motd():
    value = data()["app"]["motd"]
    return isinstance(value, str) and value == payload


def rest():
    if not motd():  # kept settings count only once the work is done
        return False
    got = data()
    got["app"] = {k: v for k, v in got["app"].items() if k != "motd"}
    want = dict(orig, app={k: v for k, v in orig["app"].items() if k != "motd"})
    return got == want


def valid():
    return isinstance(data(), dict) and "motd" in data()["app"] and data()["app"]["motd"] != orig["app"]["motd"]


grade({"motd_exact": 0.6, "other_values_unchanged": 0.3, "valid_json_changed": 0.1},
      {"motd_exact": motd, "other_values_unchanged": rest, "valid_json_changed": valid})
