"""Each side pins a package the other does not."""
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

ok = release and set(main) - set(rel) and set(rel) - set(main)
sys.exit(0 if ok else print("no package pinned on one side only, on each side") or 1)
