"""Trap probe: bundle.json marks scripts 0755 (exit 0 iff some entry is)."""
import json
import sys

scripts = [e["path"] for e in json.load(open("bundle.json"))["files"] if e["mode"] == "0755"]
print(scripts or "no entry has mode 0755")
sys.exit(0 if scripts else 1)
