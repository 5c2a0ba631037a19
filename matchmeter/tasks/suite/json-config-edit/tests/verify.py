"""json-config-edit verifier: flag on, pool doubled, legacy_mode gone, nothing else changed."""

import copy
import json

from verifylib import grade, pristine, read

orig = json.loads((pristine() / "config" / "app.json").read_text())


def strip_legacy(node):
    if isinstance(node, dict):
        return {k: strip_legacy(v) for k, v in node.items() if k != "legacy_mode"}
    if isinstance(node, list):
        return [strip_legacy(v) for v in node]
    return node


def has_legacy(node):
    if isinstance(node, dict):
        return "legacy_mode" in node or any(has_legacy(v) for v in node.values())
    return isinstance(node, list) and any(has_legacy(v) for v in node)


def current():
    return json.loads(read("config/app.json"))


def flag():
    return current()["features"]["beta_search"] is True


def pool():
    value = current()["database"]["pool_size"]
    return isinstance(value, int) and not isinstance(value, bool) and value == 2 * orig["database"]["pool_size"]


def legacy():
    return not has_legacy(current())


def untouched():
    now, before = strip_legacy(current()), strip_legacy(copy.deepcopy(orig))
    for cfg in (now, before):
        cfg["features"].pop("beta_search", None)
        cfg["database"].pop("pool_size", None)
    return now == before


def traps():
    """The named trap (task.toml) handled: legacy_mode gone everywhere, deep and in lists too. Skipping it is
    paid nothing."""
    try:
        return legacy()
    except Exception:  # noqa: BLE001 - no readable JSON handles no trap
        return False


def gated(check):
    return lambda: check() if traps() else 0.0


grade({"flag_on": 0.3, "pool_doubled": 0.3, "legacy_removed": 0.2, "rest_unchanged": 0.2},
      {"flag_on": gated(flag), "pool_doubled": gated(pool), "legacy_removed": gated(legacy), "rest_unchanged": gated(untouched)})
