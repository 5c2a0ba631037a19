#!/usr/bin/env bash
# Seeds data/deps.csv: dependency name, version, license, scope (runtime/dev) and a quoted
# free-text note that may hold commas, in seeded (unsorted) order.
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
rows = []
for name in rng.sample(names, rng.randint(8, 13)):
    scope = "dev" if name in ("pytest", "ruff", "mypy", "coverage", "black", "hypothesis") or rng.random() < 0.15 else "runtime"
    version = f"{rng.randint(0, 3)}.{rng.randint(0, 30)}.{rng.randint(0, 12)}"
    note = rng.choice(["", "pinned, see #12", "needed by the CLI", "optional, speeds up parsing", ""])
    rows.append([name, version, rng.choice(licenses), scope, note])
Path("data").mkdir(exist_ok=True)
with open("data/deps.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["name", "version", "license", "scope", "note"])
    w.writerows(rows)
PY
