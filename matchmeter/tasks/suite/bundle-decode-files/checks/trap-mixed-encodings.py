"""Trap probe: bundle.json holds both base64 and hex entries (exit 0 iff so)."""
import json
import sys

found = {e["encoding"] for e in json.load(open("bundle.json"))["files"]}
print(sorted(found))
sys.exit(0 if {"base64", "hex"} <= found else 1)
