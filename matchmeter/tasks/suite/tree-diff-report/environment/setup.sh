#!/usr/bin/env bash
# Seeds snapshots/old and snapshots/new: two versions of a small project tree with seeded added,
# removed, modified, renamed (moved, same bytes) and chmod-only files, hidden files, a name with a
# space, and an empty directory that only exists in new/. Every seed plants each named case
# (checks/trap-*.py): two moves, a file moved and edited under the same name, two chmod-only files, a
# modified file whose mode changed too, the name with a space among the modified, .gitignore added, the
# empty directory.
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
spaced = f"docs/{rng.choice(['user guide', 'change log'])}.md"
files[spaced] = f"notes {rng.random():.8f}\n".encode()
execs = {p for p in files if p.endswith(".sh")} | set(rng.sample(sorted(files), 2))
paths = sorted(p for p in files if p != spaced)
rng.shuffle(paths)
removed, modified, renamed_src, chmodded = paths[:2], paths[2:4] + [spaced], paths[4:6], paths[6:8]
edited_move = paths[8]  # moved under the same name and edited: removed + added, not a rename
old = {p: (files[p], p in execs) for p in files}
new = {p: v for p, v in old.items() if p not in removed and p not in renamed_src}
for p in modified:
    new[p] = (files[p] + f"# changed {rng.randint(1, 999)}\n".encode(), old[p][1] != (p == modified[0]))
for p in chmodded:
    new[p] = (files[p], not old[p][1])
for p in renamed_src:
    d = rng.choice([x for x in dirs if not p.startswith(x + "/")] + ["archive"])
    new[f"{d}/{Path(p).name}"] = old[p]
del new[edited_move]
d = rng.choice([x for x in dirs if not edited_move.startswith(x + "/")] + ["archive"])
new[f"{d}/{Path(edited_move).name}"] = (files[edited_move] + b"# edited after the move\n", old[edited_move][1])
for i in range(rng.randint(2, 3)):
    d = rng.choice(dirs)
    new[f"{d}/new_{rng.choice(stems)}_{i}{exts[d]}"] = (f"fresh {rng.random():.10f}\n".encode(), False)
new[".gitignore"] = (b"*.pyc\n", False)
for root, tree in (("snapshots/old", old), ("snapshots/new", new)):
    for rel, (data, x) in tree.items():
        p = Path(root) / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        os.chmod(p, 0o755 if x else 0o644)
Path("snapshots/new/build/cache").mkdir(parents=True, exist_ok=True)
PY
