#!/usr/bin/env bash
# Builds repo project/: main, a kept branch, two topic branches with unmerged work that were
# force-deleted (one worked on in two sessions), and one branch merged into main and then deleted.
# Every git call has fixed dates (reflog included), so the repository is the same for the same seed.
set -euo pipefail
PYTHONPATH="$(dirname "$0")" python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
from seedgit import start

rng, repo = start("project", month="2024-06", per_day=20, first_hour=3)
git = repo.git


def change(msg):
    name = f"src/{rng.choice(['parser', 'client', 'store', 'cli', 'report', 'sync'])}.py"
    p = repo / name
    p.parent.mkdir(exist_ok=True)
    p.write_text((p.read_text() if p.exists() else "") + f"# {msg}\nVALUE_{repo.clock.ticks} = {rng.randint(1, 999)}\n")
    git("add", name)
    git("commit", "-q", "-m", msg)


repo.init("Robin Coder", "robin@example.com")
for msg in ["Initial commit", "Add parser", "Add client"]:
    change(msg)
pool = ["retry-logic", "json-output", "fast-path", "config-reload", "batch-mode", "color-output", "proxy-support"]
lost_a, lost_b, merged, kept = [f"{p}/{n}" for p, n in zip(rng.sample(["topic", "feature", "wip", "fix"], 4),
                                                               rng.sample(pool, 4))]
git("branch", kept)
git("checkout", "-q", "-b", lost_a)
for i in range(rng.randint(1, 3)):
    change(f"{lost_a.split('/')[1]}: part {i + 1}")
git("checkout", "-q", "main")
change("Update client")
git("checkout", "-q", "-b", merged)
change(f"{merged.split('/')[1]}: implement")
git("checkout", "-q", "main")
git("merge", "-q", "--no-ff", "-m", f"Merge {merged}", merged)
git("checkout", "-q", "-b", lost_b)
for i in range(rng.randint(1, 3)):
    change(f"{lost_b.split('/')[1]}: step {i + 1}")
git("checkout", "-q", lost_a)
for i in range(rng.randint(1, 2)):
    change(f"{lost_a.split('/')[1]}: follow-up {i + 1}")
git("checkout", "-q", "main")
change("Release 1.1")
git("branch", "-d", merged)
git("branch", "-D", lost_a)
git("branch", "-D", lost_b)
PY
