#!/usr/bin/env bash
# Builds a git repository notes/ (fixed identity and dates) with a seeded history, an uncommitted
# change to todo.md and an untracked scratch.txt that must stay out of the commit.
set -euo pipefail
PYTHONPATH="$(dirname "$0")" python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
from seedgit import start

rng, repo = start("notes")
git = repo.git
repo.init("Sam Writer", "sam@example.com")
chores = ["water plants", "renew passport", "fix bike", "call plumber", "book dentist", "backup laptop",
          "pay rent", "sort photos", "update resume", "clean gutters"]
todo = [f"- [ ] {c}" for c in rng.sample(chores, 5)]
for day, message in enumerate(["Start todo list", "Add ideas file", "Reorder todo"], start=1):
    if day == 2:
        (repo / "ideas.md").write_text(f"# Ideas\n\n- {rng.choice(['garden', 'trip', 'blog'])}\n")
    if day == 3:
        before = list(todo)
        while todo == before:  # a shuffle that kept the order would leave nothing to commit
            rng.shuffle(todo)
    (repo / "todo.md").write_text("# TODO\n\n" + "\n".join(todo) + "\n")
    git("add", ".")
    git("commit", "-q", "-m", message, date=f"2024-02-{day:02d}T09:{rng.randint(10, 59)}:00+00:00")
done = rng.randrange(len(todo))
todo[done] = todo[done].replace("[ ]", "[x]")
todo.append(f"- [ ] {rng.choice([c for c in chores if all(c not in t for t in todo)])}")
(repo / "todo.md").write_text("# TODO\n\n" + "\n".join(todo) + "\n")
(repo / "scratch.txt").write_text(f"scratch {rng.randint(1, 999)}: do not commit\n")
PY
