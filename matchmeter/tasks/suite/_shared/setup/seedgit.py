"""Seeded git repositories for setup scripts: the one copy of the helper every git task's setup used to carry.

A setup script imports it from its own directory: the runner places it there (beside the script in its
copy of environment/), so does the verifier's pristine rebuild (tests/, via verify_support_files) and a
Harbor export (the image's build step); the loader finds the tasks that use it by the import.

    PYTHONPATH="$(dirname "$0")" python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
    from seedgit import start
    rng, repo = start("app", month="2024-04", per_day=24)
    git, write = repo.git, repo.write
    repo.init("Sam Maintainer", "sam@example.com")

Git runs without system or global config (nothing of the machine's git config reaches the history) and,
so that commit ids depend on the seed alone, with fixed author and committer dates: the clock's next
tick on every git call (reflog entries included), or a date given per call.
"""

import os
import random
import subprocess
import sys
from pathlib import Path


class Clock:
    """Dates of successive git calls: tick n is day 1 + n // per_day of `month` ("2024-04"), hour
    first_hour + n % per_day, a seeded minute (one rng.randint(0, 59) per tick)."""

    def __init__(self, rng, month, per_day, first_hour=0):
        self.rng, self.month, self.per_day, self.first_hour = rng, month, per_day, first_hour
        self.ticks = 0

    def __call__(self):
        self.ticks += 1
        day, hour = 1 + self.ticks // self.per_day, self.first_hour + self.ticks % self.per_day
        return f"{self.month}-{day:02d}T{hour:02d}:{self.rng.randint(0, 59):02d}:00+00:00"


class Repo:
    """A new repository at `path` (created here, relative to the workspace); `repo / name` is a path in it."""

    def __init__(self, path, clock=None):
        self.path, self.clock = Path(path), clock
        self.path.mkdir()

    def __truediv__(self, name):
        return self.path / name

    def git(self, *args, date=None):
        if date is None and self.clock is not None:
            date = self.clock()
        env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
        if date:
            env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
        subprocess.run(["git", *args], cwd=self.path, env=env, check=True, stdout=subprocess.DEVNULL)

    def init(self, name, email):
        """git init on main with a fixed identity and no signing."""
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.name", name)
        self.git("config", "user.email", email)
        self.git("config", "commit.gpgsign", "false")

    def write(self, name, text):
        """Write a file (parents created) and stage it."""
        (self.path / name).parent.mkdir(parents=True, exist_ok=True)
        (self.path / name).write_text(text)
        self.git("add", name)


def start(path, **clock):
    """(rng, repo) of a setup script: random.Random of the seed in argv[1] (the script passes MM_SEED) and
    a new Repo at path, on Clock(rng, **clock) when clock arguments are given."""
    rng = random.Random(int(sys.argv[1]))
    return rng, Repo(path, Clock(rng, **clock) if clock else None)
