#!/usr/bin/env bash
# Seeds bundle.json: a deploy bundle whose files are embedded as base64 or hex strings, with modes
# ("0755" for scripts); one binary payload so text-only tools mangle it. Every seed plants the traps
# task.toml lists: both encodings (the binary file's picked at random, the others drawn until both
# occur), a binary payload that is not UTF-8, and two 0755 scripts.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import base64
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
app = rng.choice(["kestrel", "osprey", "heron", "plover"])
port = rng.randint(2000, 9000)
files = [
    ("bin/start.sh", f"#!/bin/sh\nexec ./{app} --port {port}\n".encode(), "0755"),
    (f"bin/{rng.choice(['migrate', 'healthcheck', 'rotate-logs'])}.sh", f"#!/bin/sh\necho {app} {rng.randint(1, 99)}\n".encode(), "0755"),
    (f"conf/{app}.conf", f"name = {app}\nport = {port}\nworkers = {rng.randint(1, 16)}\n".encode(), "0644"),
    ("conf/motd.txt", f"Welcome to {app} — build {rng.randint(100, 999)}\n".encode(), "0644"),
    (f"data/{rng.choice(['seed', 'init', 'fixtures'])}.bin", b"\xff\x00" + bytes(rng.randrange(256) for _ in range(rng.randint(64, 256))), "0644"),
]
rng.shuffle(files)
encodings = [rng.choice(["base64", "hex"]) for _ in files]
while len(set(encodings)) < 2:
    encodings = [rng.choice(["base64", "hex"]) for _ in files]
entries = []
for (path, data, mode), enc in zip(files, encodings):
    text = base64.b64encode(data).decode() if enc == "base64" else data.hex()
    entries.append({"path": path, "mode": mode, "encoding": enc, "content": text})
bundle = {"bundle": app, "version": f"{rng.randint(1, 5)}.{rng.randint(0, 9)}", "files": entries}
Path("bundle.json").write_text(json.dumps(bundle, indent=2) + "\n")
PY
