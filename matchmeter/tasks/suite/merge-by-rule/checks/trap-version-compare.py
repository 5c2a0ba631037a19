"""A package both sides pin differently where comparing versions as text picks the lower one."""
import re
import subprocess
import sys


def git(*args):
    proc = subprocess.run(["git", "-C", "shop", *args], capture_output=True, text=True)
    return proc.stdout if proc.returncode == 0 else ""


release = git("for-each-ref", "--format=%(refname:short)", "refs/heads/release/").strip()


def pins(rev):
    return dict(re.findall(r"^([\w.-]+)==(\S+)$", git("show", f"{rev}:requirements.txt"), re.M))


def dates(rev):
    return re.findall(r"^## (\S+)", git("show", f"{rev}:CHANGELOG.md"), re.M)


main, rel = pins("main"), pins(release) if release else {}


def num(v):
    return [int(x) for x in v.split(".")]


found = [n for n in main if n in rel and (num(main[n]) > num(rel[n])) != (main[n] > rel[n])]
sys.exit(0 if found else print("no contested pin where text order and version order differ") or 1)
