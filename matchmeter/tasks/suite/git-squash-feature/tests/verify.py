"""git-squash-feature verifier: feature/* is one commit on the old branch point with the old tip's tree
and the first commit's subject; main is unchanged. Every subgoal needs the first commit's subject; message
and main/clean pay only once the squashed commit holds the old tree: an empty commit on the branch point
must not collect them."""

from verifylib import APP, git, grade, pristine

orig = pristine()
repo = APP / "app"


branch = git(orig / "app", "for-each-ref", "--format=%(refname:short)", "refs/heads/feature/")
old_tip = git(orig / "app", "rev-parse", branch)
old_tree = git(orig / "app", "rev-parse", f"{branch}^{{tree}}")
old_main = git(orig / "app", "rev-parse", "main")
base = git(orig / "app", "merge-base", "main", branch)
title = git(orig / "app", "log", "--reverse", "--format=%s", f"{base}..{branch}").splitlines()[0]


def subject_right():
    return (git(repo, "log", "-1", "--format=%s", branch) or "").strip() == title


def single_commit():
    """Pays only with the first commit's subject: the branch's newest subject (what `git log` shows first)
    is the sloppy pick the instruction rules out."""
    tip = git(repo, "rev-parse", branch)
    return tip is not None and tip != old_tip and git(repo, "rev-parse", f"{branch}^") == base and subject_right()


def same_tree():
    return single_commit() and git(repo, "rev-parse", f"{branch}^{{tree}}") == old_tree


def message():
    return same_tree() and subject_right()


def main_and_clean():
    return same_tree() and git(repo, "rev-parse", "main") == old_main and git(repo, "status", "--porcelain") == ""


grade({"single_commit": 0.25, "same_tree": 0.4, "message": 0.2, "main_and_clean": 0.15},
      {"single_commit": single_commit, "same_tree": same_tree, "message": message, "main_and_clean": main_and_clean})
