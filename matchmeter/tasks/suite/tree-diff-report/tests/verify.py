"""tree-diff-report verifier: added/removed/modified/renamed/mode_changed lists and the unchanged count."""

import hashlib
import os

from verifylib import all_or_nothing, grade, pristine, read_json

root = pristine() / "snapshots"


def scan(tree):
    return {p.relative_to(tree).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(), os.access(p, os.X_OK))
            for p in tree.rglob("*") if p.is_file()}


old, new = scan(root / "old"), scan(root / "new")
only_old = {p for p in old if p not in new}
only_new = {p for p in new if p not in old}
by_digest = {new[p][0]: p for p in only_new}
renamed = sorted(({"from": p, "to": by_digest[old[p][0]]} for p in only_old if old[p][0] in by_digest), key=lambda r: r["from"])
moved_from, moved_to = {r["from"] for r in renamed}, {r["to"] for r in renamed}
want = {
    "added": sorted(only_new - moved_to),
    "removed": sorted(only_old - moved_from),
    "modified": sorted(p for p in old if p in new and old[p][0] != new[p][0]),
    "mode_changed": sorted(p for p in old if p in new and old[p][0] == new[p][0] and old[p][1] != new[p][1]),
}
unchanged = sum(p in new and old[p] == new[p] for p in old)


def doc():
    return read_json("diff_report.json", dict)


def norm(items):
    return sorted(str(x).removeprefix("./") for x in items)


def lists():
    data = doc()
    return sum(norm(data.get(k, [])) == v for k, v in want.items()) / len(want)


def renames():
    got = doc().get("renamed")
    pairs = sorted((str(r["from"]).removeprefix("./"), str(r["to"]).removeprefix("./")) for r in got)
    return pairs == [(r["from"], r["to"]) for r in renamed]


def count():
    return doc().get("unchanged") == unchanged


def sorted_lists():
    data = doc()
    return lists() == 1 and all(data[k] == sorted(data[k]) for k in want)




grade({"change_lists": 0.45, "renamed": 0.25, "unchanged_count": 0.15, "lists_sorted": 0.15},
      all_or_nothing({"change_lists": lists, "renamed": renames, "unchanged_count": count, "lists_sorted": sorted_lists}))
