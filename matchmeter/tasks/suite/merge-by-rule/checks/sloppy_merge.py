"""The oracle's resolution with one named rule skipped (argv[1]); run in shop/ during the conflicted merge."""
import re
import subprocess
import sys

SKIP = sys.argv[1]


def show(rev, path):
    return subprocess.run(["git", "show", f"{rev}:{path}"], capture_output=True, text=True, check=True).stdout


def newer(a, b):
    return a > b if SKIP == "version-compare" else [int(x) for x in a.split(".")] > [int(x) for x in b.split(".")]


pins = {}
for rev in ("HEAD", "MERGE_HEAD"):
    for name, ver in re.findall(r"^([\w.-]+)==(\S+)$", show(rev, "requirements.txt"), re.M):
        if SKIP == "both-packages" and rev == "MERGE_HEAD" and name not in pins:
            continue
        if name not in pins or newer(ver, pins[name]):
            pins[name] = ver
open("requirements.txt", "w").write("".join(f"{n}=={pins[n]}\n" for n in sorted(pins, key=str.lower)))
entries = {}
for rev in ("HEAD", "MERGE_HEAD"):
    for date, body in re.findall(r"^## (\S+)\n(.*?)(?=^## |\Z)", show(rev, "CHANGELOG.md"), re.M | re.S):
        entries.setdefault(date, body.strip())
order = list(entries) if SKIP == "newest-first" else sorted(entries, reverse=True)
open("CHANGELOG.md", "w").write("# Changelog\n" + "".join(f"\n## {d}\n{entries[d]}\n" for d in order))
open("VERSION", "w").write(show("MERGE_HEAD" if SKIP == "version-main" else "HEAD", "VERSION"))
