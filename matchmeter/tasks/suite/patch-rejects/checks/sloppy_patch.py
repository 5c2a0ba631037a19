"""Applies patches/feature.patch well except for one named case (argv[1]); the cheap-trap-*.sh shots share it."""
import re
import subprocess
import sys
from pathlib import Path

SKIP = sys.argv[1]
patch = Path("patches/feature.patch")
fixed = re.sub(r"(?m)^(---|\+\+\+) ([ab])/settings\.ini", r"\1 \2/config/settings.ini", patch.read_text())
if SKIP == "patch-unedited":  # the path fixed in the patch file itself
    patch.write_text(fixed)
text = patch.read_text() if SKIP == "moved-file" else fixed  # moved-file: the old path, so settings is skipped
backups = [] if SKIP == "no-leftovers" else ["--no-backup-if-mismatch"]
subprocess.run(["patch", "-p1", "-f", *backups], cwd="project", input=text, text=True, capture_output=True)


def hunks(rej):
    out, cur = [], None
    for line in rej.read_text().splitlines(True):
        if line.startswith("@@"):
            cur = []
            out.append(cur)
        elif cur is not None and line[:1] in " -+":
            cur.append(line)
    return out


for rej in Path("project").rglob("*.rej"):
    target = Path(str(rej)[:-4])
    if SKIP == "rejected-hunk" or not target.exists():
        rej.unlink()  # what does not apply is dropped
        continue
    lines = target.read_text().splitlines(True)
    for hunk in hunks(rej):
        old = [l[1:] for l in hunk if l[0] in " -"]
        new = [l[1:] for l in hunk if l[0] in " +"]
        removed = [l[1:] for l in hunk if l[0] == "-"]
        first = next(i for i, l in enumerate(hunk) if l[0] != " ")
        at = next(i for i in range(len(lines)) if lines[i:i + len(removed)] == removed)
        if SKIP == "keep-drift":  # the whole hunk written over its place, context included
            lines[at - first:at - first + len(old)] = new
        else:  # only the changed lines, the current context kept
            added = [l[1:] for l in hunk if l[0] == "+"]
            lines[at:at + len(removed)] = added
    target.write_text("".join(lines))
    if SKIP != "no-leftovers":
        rej.unlink()
