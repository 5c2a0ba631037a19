"""Trap probe: legacy_mode more than one level deep or inside a list (exit 0 iff so)."""
import json
import sys


def deep(node, depth, in_list):
    if isinstance(node, dict):
        here = "legacy_mode" in node and (depth > 1 or in_list)
        return here or any(deep(v, depth + 1, in_list) for v in node.values())
    return isinstance(node, list) and any(deep(v, depth + 1, True) for v in node)


sys.exit(0 if deep(json.load(open("config/app.json")), 0, False) else 1)
