"""A deleted branch whose last tip is merged into main (it must stay deleted)."""
import re
import subprocess
import sys

proc = subprocess.run(["git", "-C", "project", "reflog", "--format=%H %gs"], capture_output=True, text=True)
entries = [line.split(" ", 1) for line in reversed(proc.stdout.splitlines())] if proc.returncode == 0 else []
heads = subprocess.run(["git", "-C", "project", "for-each-ref", "--format=%(refname:short)", "refs/heads/"],
                       capture_output=True, text=True).stdout.split()
leaves, last = {}, None
for sha, subject in entries:
    m = re.match(r"checkout: moving from (\S+) to ", subject)
    if m and m.group(1) not in heads:
        leaves.setdefault(m.group(1), []).append(last)
    last = sha


def merged(sha):
    return subprocess.run(["git", "-C", "project", "merge-base", "--is-ancestor", sha, "main"]).returncode == 0


found = [b for b, tips in leaves.items() if merged(tips[-1])]
sys.exit(0 if found else print("no deleted branch merged into main") or 1)
