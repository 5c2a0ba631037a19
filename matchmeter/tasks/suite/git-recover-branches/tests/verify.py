"""git-recover-branches verifier: both force-deleted unmerged branches are back at their last commits;
the merged one stays deleted; existing branches did not move. A branch pays only while the one worked on
in two sessions is right and no merged branch is recreated; the two side conditions only once both are back; git runs without the agent's hooks and fsmonitor."""

import re

from verifylib import APP, git, grade, pristine

orig = pristine()
repo = APP / "project"


def branches(cwd):
    out = git(cwd, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads/") or ""
    return dict(line.split() for line in out.splitlines())


existing = branches(orig / "project")
# Reflog, oldest first: the commit HEAD held when we moved away from a branch is that branch's tip then.
tips, last = {}, None
for line in reversed(git(orig / "project", "reflog", "--format=%H %gs").splitlines()):
    sha, subject = line.split(" ", 1)
    m = re.match(r"checkout: moving from (\S+) to ", subject)
    if m and m.group(1) not in existing:
        tips[m.group(1)] = last
    last = sha
main = existing["main"]
lost = {b: t for b, t in tips.items() if git(orig / "project", "merge-base", "--is-ancestor", t, main) is None}
merged = [b for b in tips if b not in lost]


# The lost branch worked on in two sessions (left twice in the reflog): its first leave is not its tip.
left = [re.match(r"checkout: moving from (\S+) to ", s) for s in git(orig / "project", "reflog", "--format=%gs").splitlines()]
twice = [b for b in lost if sum(m is not None and m.group(1) == b for m in left) > 1]


def restored(k):
    """A branch pays only while the two-session branch is right too and no merged branch is back."""
    now = branches(repo)
    name = sorted(lost)[k]
    return now.get(name) == lost[name] and all(now.get(b) == lost[b] for b in twice) and not any(b in now for b in merged)


def no_merged_back():
    return all(restored(k) for k in range(len(lost))) and not any(b in branches(repo) for b in merged)


def others_unmoved():
    now = branches(repo)
    return all(restored(k) for k in range(len(lost))) and all(now.get(b) == s for b, s in existing.items())


grade({"first_branch": 0.35, "second_branch": 0.35, "merged_not_restored": 0.1, "others_unmoved": 0.2},
      {"first_branch": lambda: restored(0), "second_branch": lambda: restored(1),
       "merged_not_restored": no_merged_back, "others_unmoved": others_unmoved})
