"""The release branch's newest changelog entry is not main's newest (appending its entries misorders them)."""
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

d_main, d_rel = dates("main"), dates(release) if release else []
ok = d_main and d_rel and d_rel[0] != d_main[0] and d_rel[0] not in d_main
sys.exit(0 if ok else print("the release adds no changelog entry of its own") or 1)
