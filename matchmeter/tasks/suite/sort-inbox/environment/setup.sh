#!/usr/bin/env bash
# Seeds inbox/ with files of mixed extensions (some upper-case, one without, one .tar.gz, one with a
# space: each on every seed)
# and an archive/ directory that must stay untouched.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
words = ["budget", "invoice", "notes", "photo", "draft", "summary", "export", "backup", "minutes",
         "roadmap", "report", "todo", "letter", "scan", "log", "contacts", "plan", "receipt"]
exts = ["txt", "csv", "log", "json", "md", "pdf", "TXT", "Csv"]
inbox = Path("inbox")
inbox.mkdir(parents=True, exist_ok=True)
names = set()
while len(names) < rng.randint(9, 14):
    stem = f"{rng.choice(words)}_{rng.randint(1, 99)}"
    names.add(f"{stem}.{rng.choice(exts)}")
names.add(f"meeting {rng.choice(words)}.{rng.choice(exts[:5])}")
names.add(f"{rng.choice(['README', 'Makefile', 'LICENSE', 'notes'])}")
names.add(f"{rng.choice(words)}.tar.gz")
names.add(f"{rng.choice(words)}_{rng.randint(100, 199)}.{rng.choice(['TXT', 'Csv', 'PDF'])}")  # an upper-case extension on every seed
for name in sorted(names):
    (inbox / name).write_text(f"{name}: {rng.random():.12f}\n" * rng.randint(1, 5))
archive = Path("archive/2023")
archive.mkdir(parents=True, exist_ok=True)
for i in range(3):
    (archive / f"{rng.choice(words)}_{i}.txt").write_text(f"archived {rng.randint(1000, 9999)}\n")
PY
