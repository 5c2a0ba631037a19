#!/usr/bin/env bash
# Seeds out/ with an outdated message.txt and a notes file (seeded); the target bytes are fixed by the task.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
Path("out").mkdir()
build = rng.randint(100, 999)
Path("out/message.txt").write_text(f"draft {build}: {rng.choice(['tbd', 'todo', 'placeholder'])}\n")
Path("out/KEEP.md").write_text(f"# Broadcast log\n\nlast broadcast: build {build - rng.randint(1, 50)}\n")
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
