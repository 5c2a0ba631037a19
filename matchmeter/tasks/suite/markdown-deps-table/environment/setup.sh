#!/usr/bin/env bash
# Seeds data/deps.csv: dependency name, version, license, a quoted free-text note and scope (runtime/dev),
# in seeded order. Every seed plants the traps task.toml lists: a dev-only row, a runtime row whose note
# holds a comma (before the scope column), a runtime row listed twice, runtime rows not in name order.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
names = ["requests", "click", "rich", "pydantic", "numpy", "pytest", "ruff", "mypy", "attrs", "httpx",
         "jinja2", "pyyaml", "coverage", "black", "tomli", "orjson", "sqlalchemy", "hypothesis"]
licenses = ["MIT", "BSD-3-Clause", "Apache-2.0", "MPL-2.0"]
DEV = ("pytest", "ruff", "mypy", "coverage", "black", "hypothesis")
chosen = rng.sample(names, rng.randint(8, 13))
if not set(chosen) & set(DEV):  # every seed has a dev-only row
    chosen[rng.randrange(len(chosen))] = rng.choice(DEV)
rows = []
for name in chosen:
    scope = "dev" if name in DEV or rng.random() < 0.15 else "runtime"
    version = f"{rng.randint(0, 3)}.{rng.randint(0, 30)}.{rng.randint(0, 12)}"
    note = rng.choice(["", "pinned, see #12", "needed by the CLI", "optional, speeds up parsing", ""])
    rows.append([name, version, rng.choice(licenses), note, scope])
for row in rows:  # at least three runtime rows
    if sum(r[4] == "runtime" for r in rows) < 3 and row[0] not in DEV:
        row[4] = "runtime"
runtime = [r for r in rows if r[4] == "runtime"]
if not any("," in r[3] for r in runtime):  # a quoted note with a comma, before the scope column
    rng.choice(runtime)[3] = rng.choice(["pinned, see #12", "optional, speeds up parsing"])
rows.insert(rng.randrange(len(rows) + 1), list(rng.choice(runtime)))  # a runtime row listed twice
while [r[0] for r in rows if r[4] == "runtime"] == sorted(r[0] for r in rows if r[4] == "runtime"):
    rng.shuffle(rows)  # never already in name order
Path("data").mkdir(exist_ok=True)
with open("data/deps.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["name", "version", "license", "note", "scope"])
    w.writerows(rows)
PY
