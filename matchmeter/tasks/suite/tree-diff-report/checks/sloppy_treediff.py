"""A correct tree diff that skips one named case (argv[1]): the cheap-trap-*.sh shots share it."""
import hashlib
import json
import os
import sys
from pathlib import Path

SKIP = sys.argv[1]


def scan(top):
    top = Path(top)
    paths = sorted(p.relative_to(top).as_posix() for p in top.rglob("*")
                   if p.is_file() or (SKIP == "dirs-not-files" and p.is_dir() and not any(p.iterdir())))
    if SKIP == "hidden-files":  # a shell glob: dotfiles never seen
        paths = [p for p in paths if not any(part.startswith(".") for part in p.split("/"))]
    if SKIP == "space-in-name":  # for f in $(find ...): a name with a space falls apart into words
        paths = " ".join(paths).split()
    out = {}
    for rel in paths:
        p = top / rel
        digest = hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else None
        out[rel] = (digest, os.access(p, os.X_OK) if p.exists() else False)
    return out


old, new = scan("snapshots/old"), scan("snapshots/new")
gone, fresh = sorted(set(old) - set(new)), sorted(set(new) - set(old))
renamed = []
if SKIP != "renamed":
    if SKIP == "rename-needs-same-content":  # a move is a file of the same name in another folder
        by_name = {Path(p).name: p for p in fresh}
        renamed = [{"from": p, "to": by_name[Path(p).name]} for p in gone if Path(p).name in by_name]
    else:
        by_hash = {new[p][0]: p for p in fresh}
        renamed = [{"from": p, "to": by_hash[old[p][0]]} for p in gone if old[p][0] in by_hash]
both = sorted(set(old) & set(new))
mode = (lambda p: False) if SKIP == "mode-only" else (lambda p: old[p][1] != new[p][1])
same = (lambda p: True) if SKIP == "mode-needs-same-content" else (lambda p: old[p][0] == new[p][0])
identical = (lambda p: old[p][0] == new[p][0]) if SKIP == "unchanged-identical" else (
    lambda p: old[p][0] == new[p][0] and not mode(p))
report = {
    "added": sorted(set(fresh) - {r["to"] for r in renamed}),
    "removed": sorted(set(gone) - {r["from"] for r in renamed}),
    "modified": [p for p in both if old[p][0] != new[p][0]],
    "renamed": renamed,
    "mode_changed": [p for p in both if same(p) and mode(p)],
    "unchanged": sum(1 for p in both if identical(p)),
}
with open("diff_report.json", "w") as fh:
    json.dump(report, fh, indent=2)
