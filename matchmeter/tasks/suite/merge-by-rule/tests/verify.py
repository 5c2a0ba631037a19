"""merge-by-rule verifier: main has a merge commit of the release branch whose requirements take the
higher pin of each package, whose changelog holds both sides' entries newest first, and whose VERSION
and other files are what the rules and an ordinary merge give. Every subgoal pays only when every named rule
is kept (both rule-resolved files right, main's VERSION): `git merge -X ours` is not the task;
git runs without the agent's hooks and fsmonitor."""

import re

from verifylib import APP, grade, pristine
from verifylib import git as safe_git

orig = pristine()
repo = APP / "shop"


def git(cwd, *args):
    return safe_git(cwd, *args, strip=False)


def show(cwd, rev, path):
    return git(cwd, "show", f"{rev}:{path}")


release = git(orig / "shop", "for-each-ref", "--format=%(refname:short)", "refs/heads/release/").strip()
old_main = git(orig / "shop", "rev-parse", "main").strip()
rel_tip = git(orig / "shop", "rev-parse", release).strip()


def pins(text):
    return {m.group(1): m.group(2) for m in re.finditer(r"^([\w.-]+)==(\S+)$", text or "", re.M)}


def vkey(v):
    return tuple(int(x) for x in v.split("."))


want_pins = pins(show(orig / "shop", old_main, "requirements.txt"))
for name, v in pins(show(orig / "shop", rel_tip, "requirements.txt")).items():
    if name not in want_pins or vkey(v) > vkey(want_pins[name]):
        want_pins[name] = v
main_pins, rel_pins = (pins(show(orig / "shop", r, "requirements.txt")) for r in (old_main, rel_tip))
# The rule's work is in the packages both sides pin differently; `-X ours` gets the others for free.
contested = [n for n in want_pins if n in main_pins and n in rel_pins and main_pins[n] != rel_pins[n]]


def entries(text):
    return [(m.group(1), tuple(ln.strip() for ln in m.group(2).strip().splitlines()))
            for m in re.finditer(r"^## (\S+)\n(.*?)(?=^## |\Z)", text or "", re.M | re.S)]


want_log = sorted(set(entries(show(orig / "shop", old_main, "CHANGELOG.md")) + entries(show(orig / "shop", rel_tip, "CHANGELOG.md"))),
                  key=lambda e: e[0], reverse=True)
others = {"VERSION": show(orig / "shop", old_main, "VERSION"), "src/app.py": show(orig / "shop", old_main, "src/app.py"),
          "docs/release.md": show(orig / "shop", rel_tip, "docs/release.md"), "docs/index.md": show(orig / "shop", old_main, "docs/index.md")}


def parents_right():
    parents = (git(repo, "rev-list", "--parents", "-n", "1", "main") or "").split()[1:]
    return parents == [old_main, rel_tip]


def requirements_exact():
    text = show(repo, "main", "requirements.txt")
    got = pins(text)
    names = [ln.split("==")[0] for ln in (text or "").splitlines() if ln.strip()]
    return got == want_pins and names == sorted(names, key=str.lower) and len(names) == len(got)


def changelog_right():
    text = show(repo, "main", "CHANGELOG.md") or ""
    return text.startswith("# Changelog") and "<<<<<<<" not in text and entries(text) == want_log


def rules_kept():
    """Each named rule (higher pin compared numerically, every package of both sides, newest entry first,
    main's VERSION): skipping any one of them pays nothing."""
    return (parents_right() and requirements_exact() and changelog_right()
            and show(repo, "main", "VERSION") == others["VERSION"])


def requirements():
    got = pins(show(repo, "main", "requirements.txt"))
    return rules_kept() and sum(got.get(n) == want_pins[n] for n in contested) / len(contested)


def changelog():
    return rules_kept()


def merged():
    return rules_kept()


def other_files():
    return merged() and all(show(repo, "main", p) == t for p, t in others.items())


def clean():
    branch = (git(repo, "symbolic-ref", "--short", "HEAD") or "").strip()
    rel_kept = (git(repo, "rev-parse", release) or "").strip() == rel_tip
    markers = git(repo, "grep", "-l", "-E", "^(<<<<<<<|>>>>>>>)", "main") or ""
    return merged() and branch == "main" and rel_kept and git(repo, "status", "--porcelain") == "" and not markers.strip()


grade({"merge_commit": 0.2, "requirements": 0.3, "changelog": 0.2, "other_files": 0.15, "clean": 0.15},
      {"merge_commit": merged, "requirements": requirements, "changelog": changelog, "other_files": other_files,
       "clean": clean})
