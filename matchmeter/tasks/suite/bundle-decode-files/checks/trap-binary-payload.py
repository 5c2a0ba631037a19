"""Trap probe: a bundle entry whose decoded bytes are not UTF-8 text (exit 0 iff so)."""
import base64
import json
import sys

binary = []
for e in json.load(open("bundle.json"))["files"]:
    data = base64.b64decode(e["content"]) if e["encoding"] == "base64" else bytes.fromhex(e["content"])
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        binary.append(e["path"])
print(binary or "no entry decodes to non-UTF-8 bytes")
sys.exit(0 if binary else 1)
