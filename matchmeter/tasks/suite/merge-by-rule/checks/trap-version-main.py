"""main and the release branch have different VERSION files."""
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

v_main, v_rel = git("show", "main:VERSION"), git("show", f"{release}:VERSION") if release else ""
sys.exit(0 if v_main and v_rel and v_main != v_rel else print("VERSION does not differ between the sides") or 1)
