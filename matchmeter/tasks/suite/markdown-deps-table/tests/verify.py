"""markdown-deps-table verifier: DEPENDENCIES.md holds a pipe table of the runtime deps, sorted by name."""

import csv

from verifylib import grade, pristine, read

with open(pristine() / "data" / "deps.csv", newline="") as fh:
    deps = list(csv.DictReader(fh))
expected = sorted(([d["name"], d["version"], d["license"]] for d in deps if d["scope"] == "runtime"))
dev = {d["name"] for d in deps if d["scope"] != "runtime"}


def table():
    """(header cells, data rows) of the first pipe table; inline code marks around cells are ignored."""
    lines = [ln.strip() for ln in read("DEPENDENCIES.md").splitlines()]
    start = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
    block = []
    for ln in lines[start:]:
        if not ln.startswith("|"):
            break
        block.append([c.strip().strip("`").strip() for c in ln.strip("|").split("|")])
    assert len(block) >= 2 and all(set(c) <= set(":- ") and c for c in block[1])
    return block[0], block[2:]


def header():
    return table()[0] == ["Package", "Version", "License"]


def rows():
    got = table()[1]
    return sum(r in got for r in expected) / max(len(expected), len(got))


def no_dev():
    got = table()[1]
    return bool(got) and not any(r and r[0] in dev for r in got)


def ordered():
    return table()[1] == expected


grade({"table_header": 0.2, "runtime_rows": 0.4, "no_dev_deps": 0.2, "sorted_exact": 0.2},
      {"table_header": header, "runtime_rows": rows, "no_dev_deps": no_dev, "sorted_exact": ordered})
