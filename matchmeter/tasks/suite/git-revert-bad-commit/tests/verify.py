"""git-revert-bad-commit verifier: a new commit on top of the old head restores max_connections and keeps
the later changes to settings.ini.
The restored setting pays only on top of the kept history (a reset is not the task), and history and
a clean tree pay only with the setting restored (an empty commit is not the task either)."""

import re

from verifylib import APP, grade, pristine
from verifylib import git as safe_git

orig = pristine()
repo = APP / "service"


def git(cwd, *args):
    return safe_git(cwd, *args, strip=False)


old_head = git(orig / "service", "rev-parse", "HEAD").strip()
initial = git(orig / "service", "show", f"{git(orig / 'service', 'rev-list', '--max-parents=0', 'HEAD').strip()}:settings.ini")
good_value = re.search(r"max_connections = (\d+)", initial).group(1)
expected = {}
for path in git(orig / "service", "ls-tree", "-r", "--name-only", "HEAD").split():
    expected[path] = git(orig / "service", "show", f"HEAD:{path}")
expected["settings.ini"] = expected["settings.ini"].replace("max_connections = 0", f"max_connections = {good_value}")


def on_top():
    head = git(repo, "rev-parse", "HEAD")
    ancestor = git(repo, "merge-base", "--is-ancestor", old_head, "HEAD") is not None
    return head is not None and head.strip() != old_head and ancestor


def fixed():
    if not on_top():
        return False
    # The whole file: the value back and the later changes to settings.ini kept.
    return git(repo, "show", "HEAD:settings.ini") == expected["settings.ini"]


def others_kept():
    if not on_top():
        return 0
    files = (git(repo, "ls-tree", "-r", "--name-only", "HEAD") or "").split()
    return set(files) == set(expected) and all(git(repo, "show", f"HEAD:{p}") == expected[p] for p in expected)


def clean():
    return fixed() and git(repo, "status", "--porcelain") == ""


grade({"history_kept": 0.3, "setting_restored": 0.4, "other_changes_kept": 0.2, "clean_tree": 0.1},
      {"history_kept": lambda: on_top() and fixed(), "setting_restored": fixed, "other_changes_kept": others_kept, "clean_tree": clean})
