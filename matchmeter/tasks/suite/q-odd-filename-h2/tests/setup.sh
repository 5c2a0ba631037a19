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
