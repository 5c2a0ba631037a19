#!/usr/bin/env bash
# Seeds data/ with 6-9 project directories of nested files whose total sizes differ by seeded,
# well-separated amounts (no ties), each with files in a subdirectory, plus a loose file at the top that belongs to no directory and is larger than any project.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
names = ["alpha", "billing", "crawler", "dashboard", "etl", "frontend", "gateway", "harvest", "indexer",
         "journal", "kiosk", "ledger", "mailer", "notifier"]
dirs = rng.sample(names, rng.randint(6, 9))
# Totals are multiples of 25 kB apart so a 4 kB-per-directory rounding never reorders them.
totals = rng.sample(range(2, 40), len(dirs))
for name, units in zip(dirs, totals):
    total = units * 25_000 + rng.randint(0, 999)
    # Every project keeps some bytes in a subdirectory, so a top-level-only sum is always wrong.
    subdirs = ["", "cache", "logs", f"v{rng.randint(1, 3)}/assets"][: rng.randint(2, 4)]
    parts = rng.randint(2, 6)
    sizes = [total // parts] * (parts - 1)
    sizes.append(total - sum(sizes))
    for i, size in enumerate(sizes):
        sub = Path("data", name, subdirs[1] if i == 0 else rng.choice(subdirs))
        sub.mkdir(parents=True, exist_ok=True)
        hidden = "." if i == 1 else ""
        (sub / f"{hidden}part-{i}.bin").write_bytes(bytes(rng.getrandbits(8) for _ in range(64)) * (size // 64)
                                                     + b"z" * (size % 64))
# The loose file outweighs every project, so counting it as one always shows (tests/tasks/test_traps.py).
Path("data/README.txt").write_text("one directory per project\n" + "x" * (max(totals) * 25_000 + rng.randint(30_000, 60_000)))
PY
