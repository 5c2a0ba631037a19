#!/usr/bin/env bash
# Builds repo/ (fixed identity and dates, seeded history), a pending change to CHANGELOG.md and an
# untracked scratch file that must stay out of the commit.
set -euo pipefail
PYTHONPATH="$(dirname "$0")" python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import sys

from seedgit import start

rng, repo = start("repo")
git = repo.git
repo.init("Robin Release", "robin@example.com")
items = ["faster startup", "new export format", "fix login loop", "dark mode", "retry uploads", "smaller images"]
entries = []
for day, version in enumerate(rng.sample(["1.0", "1.1", "1.2", "1.3", "2.0"], 3), start=1):
    entries.insert(0, f"## {version}\n\n- {rng.choice(items)}\n")
    (repo / "CHANGELOG.md").write_text("# Changelog\n\n" + "\n".join(entries))
    if day == 1:
        (repo / "README.md").write_text(f"# {rng.choice(['atlas', 'cinder', 'dune'])}\n")
    git("add", ".")
    git("commit", "-q", "-m", f"Release {version}", date=f"2024-03-{day:02d}T10:{rng.randint(10, 59)}:00+00:00")
entries.insert(0, f"## Unreleased\n\n- {rng.choice(items)}\n")
(repo / "CHANGELOG.md").write_text("# Changelog\n\n" + "\n".join(entries))
(repo / "scratch.txt").write_text(f"scratch {rng.randint(1, 999)}: not for the repo\n")
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
