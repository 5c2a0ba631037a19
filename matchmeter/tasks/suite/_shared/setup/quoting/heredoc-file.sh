#!/usr/bin/env bash
# Seeds snippets/ with an outdated block.txt and a seeded index file.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
Path("snippets").mkdir()
Path("snippets/block.txt").write_text(f"# outdated snippet v{rng.randint(1, 9)}\necho todo\n")
names = rng.sample(["deploy", "rollback", "migrate", "warmup", "drain"], 3)
Path("snippets/INDEX").write_text("".join(f"{n}.txt: {rng.choice(['ok', 'stale', 'review'])}\n" for n in names))
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
