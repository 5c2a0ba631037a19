"""merge-by-rule verifier: main has a merge commit of the release branch whose requirements take the
higher pin of each package, whose changelog holds both sides' entries newest first, and whose VERSION
and other files are what the rules and an ordinary merge give."""

import re
import subprocess

from verifylib import APP, grade, pristine

orig = pristine()
repo = APP / "shop"


def git(cwd, *args):
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30)
    return proc.stdout if proc.returncode == 0 else None


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


def entries(text):
    return [(m.group(1), tuple(ln.strip() for ln in m.group(2).strip().splitlines()))
            for m in re.finditer(r"^## (\S+)\n(.*?)(?=^## |\Z)", text or "", re.M | re.S)]


want_log = sorted(set(entries(show(orig / "shop", old_main, "CHANGELOG.md")) + entries(show(orig / "shop", rel_tip, "CHANGELOG.md"))),
                  key=lambda e: e[0], reverse=True)
others = {"VERSION": show(orig / "shop", old_main, "VERSION"), "src/app.py": show(orig / "shop", old_main, "src/app.py"),
          "docs/release.md": show(orig / "shop", rel_tip, "docs/release.md"), "docs/index.md": show(orig / "shop", old_main, "docs/index.md")}


def merged():
    parents = (git(repo, "rev-list", "--parents", "-n", "1", "main") or "").split()[1:]
    return parents == [old_main, rel_tip]


def requirements():
    text = show(repo, "main", "requirements.txt")
    got = pins(text)
    names = [ln.split("==")[0] for ln in (text or "").splitlines() if ln.strip()]
    score = sum(got.get(n) == v for n, v in want_pins.items()) / len(want_pins)
    exact = set(got) == set(want_pins) and names == sorted(names, key=str.lower) and len(names) == len(got)
    return merged() and (score if exact else 0.5 * score)


def changelog():
    text = show(repo, "main", "CHANGELOG.md") or ""
    return merged() and text.startswith("# Changelog") and "<<<<<<<" not in text and entries(text) == want_log


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
