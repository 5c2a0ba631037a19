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
