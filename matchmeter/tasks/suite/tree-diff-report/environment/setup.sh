#!/usr/bin/env bash
# Seeds snapshots/old and snapshots/new: two versions of a small project tree with seeded added,
# removed, modified, renamed (moved, same bytes) and chmod-only files, hidden files, a name with a
# space, and an empty directory that only exists in new/.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import os
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
dirs = ["src", "src/core", "docs", "scripts", "config", "tests", "assets/img"]
stems = ["main", "utils", "parser", "render", "guide", "setup", "deploy", "settings", "logo", "helpers",
         "index", "model", "views", "cli", "notes", "backup", "lint", "schema", "cache", "api"]
exts = {"src": ".py", "src/core": ".py", "docs": ".md", "scripts": ".sh", "config": ".toml", "tests": ".py", "assets/img": ".svg"}
files = {}
for stem in rng.sample(stems, 16):
    d = rng.choice(dirs)
    files[f"{d}/{stem}{exts[d]}"] = (f"# {stem} {rng.random():.10f}\n" * rng.randint(1, 4)).encode()
files[".env"] = f"TOKEN=dev-{rng.randint(1000, 9999)}\n".encode()
files[f"docs/{rng.choice(['user guide', 'change log'])}.md"] = f"notes {rng.random():.8f}\n".encode()
execs = {p for p in files if p.endswith(".sh")} | set(rng.sample(sorted(files), 2))
paths = sorted(files)
rng.shuffle(paths)
removed, modified, renamed_src, chmodded = paths[:2], paths[2:5], paths[5:7], paths[7:9]
old = {p: (files[p], p in execs) for p in files}
new = {p: v for p, v in old.items() if p not in removed and p not in renamed_src}
for p in modified:
    new[p] = (files[p] + f"# changed {rng.randint(1, 999)}\n".encode(), old[p][1])
for p in chmodded:
    new[p] = (files[p], not old[p][1])
for p in renamed_src:
    d = rng.choice([x for x in dirs if not p.startswith(x + "/")] + ["archive"])
    new[f"{d}/{Path(p).name}"] = old[p]
for i in range(rng.randint(2, 3)):
    d = rng.choice(dirs)
    new[f"{d}/new_{rng.choice(stems)}_{i}{exts[d]}"] = (f"fresh {rng.random():.10f}\n".encode(), False)
if rng.random() < 0.5:
    new[".gitignore"] = (b"*.pyc\n", False)
for root, tree in (("snapshots/old", old), ("snapshots/new", new)):
    for rel, (data, x) in tree.items():
        p = Path(root) / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        os.chmod(p, 0o755 if x else 0o644)
Path("snapshots/new/build/cache").mkdir(parents=True, exist_ok=True)
PY
