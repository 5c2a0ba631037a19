#!/usr/bin/env bash
# Seeds inbox/ with a few seeded files (names and contents vary by seed).
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
Path("inbox").mkdir()
for name in rng.sample(["invoice-0142.pdf", "notes.txt", "scan 003.png", "minutes.md", "todo.txt"], 3):
    Path("inbox", name).write_text(f"{name} #{rng.randint(1, 999)}\n")
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
