#!/usr/bin/env bash
# Builds a git repository notes/ (fixed identity and dates) with a seeded history, an uncommitted
# change to todo.md and an untracked scratch.txt that must stay out of the commit.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import os
import random
import subprocess
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
repo = Path("notes")
repo.mkdir()
env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")


def git(*args, date=None):
    e = dict(env)
    if date:
        e.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", *args], cwd=repo, env=e, check=True, stdout=subprocess.DEVNULL)


git("init", "-q", "-b", "main")
git("config", "user.name", "Sam Writer")
git("config", "user.email", "sam@example.com")
git("config", "commit.gpgsign", "false")
chores = ["water plants", "renew passport", "fix bike", "call plumber", "book dentist", "backup laptop",
          "pay rent", "sort photos", "update resume", "clean gutters"]
todo = [f"- [ ] {c}" for c in rng.sample(chores, 5)]
for day, message in enumerate(["Start todo list", "Add ideas file", "Reorder todo"], start=1):
    if day == 2:
        (repo / "ideas.md").write_text(f"# Ideas\n\n- {rng.choice(['garden', 'trip', 'blog'])}\n")
    if day == 3:
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
