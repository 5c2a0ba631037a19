"""markdown-deps-table verifier: DEPENDENCIES.md holds a pipe table of the runtime deps, one row each, sorted by name.

Strict on the named cases (every seed plants them, task.toml's traps): rows, no-dev and the exact order pay only
when the header is Package | Version | License, no dev-only row is listed, no package is listed twice, the rows
are in name order and every runtime row whose quoted note holds a comma is there."""

import csv

from verifylib import grade, pristine, read

with open(pristine() / "data" / "deps.csv", newline="") as fh:
    deps = list(csv.DictReader(fh))
expected = sorted({(d["name"], d["version"], d["license"]) for d in deps if d["scope"] == "runtime"})
expected = [list(r) for r in expected]
dev = {d["name"] for d in deps if d["scope"] != "runtime"}
comma_rows = [[d["name"], d["version"], d["license"]] for d in deps if d["scope"] == "runtime" and "," in d["note"]]


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


def named_cases():
    """Every named case handled: header, no dev row, one row per package, name order, the comma-note rows."""
    got = table()[1]
    names = [r[0] for r in got if r]
    return (header() and not set(names) & dev and len(names) == len(set(names)) and names == sorted(names)
            and all(r in got for r in comma_rows))


def rows():
    got = table()[1]
    return named_cases() and sum(r in got for r in expected) / max(len(expected), len(got))


def no_dev():
    got = table()[1]
    return named_cases() and bool(got) and not any(r and r[0] in dev for r in got)


def ordered():
    return named_cases() and table()[1] == expected


grade({"table_header": 0.2, "runtime_rows": 0.4, "no_dev_deps": 0.2, "sorted_exact": 0.2},
      {"table_header": header, "runtime_rows": rows, "no_dev_deps": no_dev, "sorted_exact": ordered})
