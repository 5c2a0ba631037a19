#!/usr/bin/env bash
# Seeds release.conf (name, version, source_date_epoch) and src/ with nested files of mixed modes
# and (at run time) current mtimes, names that sort differently per component ("a-b" vs "a/"),
# plus clutter that must stay out of the release: editor backups (*~) and __pycache__ directories;
# src/ is owned by uid/gid 1000 (a developer's checkout) where the sandbox allows chown (not bwrap).
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import os
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
name = rng.choice(["widgetd", "tinyhttp", "logslurp", "cfgtool", "pinger"])
version = f"{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"
epoch = rng.randint(1_600_000_000, 1_700_000_000)
Path("release.conf").write_text(f"# release settings\nname = {name}\nversion = {version}\nsource_date_epoch = {epoch}\n")
files = ["README.md", "LICENSE", f"{name}/__init__.py", f"{name}/core.py", f"{name}/cli.py", f"{name}-extras/notes.txt",
         "docs/index.md", "docs/usage.md", "tests/test_core.py", "scripts/install.sh", "Zeta.txt", "alpha.txt"]
# every seed: names whose order depends on case ("Zeta" < "alpha") and on per-component sorting ("x-extras" vs "x/")
always = ["README.md", f"{name}/core.py", f"{name}-extras/notes.txt", "Zeta.txt", "alpha.txt"]
for rel in rng.sample(files, rng.randint(8, len(files))) + always:
    p = Path("src", rel)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(f"{rel} of {name} {version}\n" + "".join(f"line {i} {rng.randint(0, 10**6)}\n" for i in range(rng.randint(1, 30))))
    os.chmod(p, 0o755 if rel.endswith(".sh") else rng.choice([0o644, 0o664, 0o600]))
Path("src", f"{name}/core.py~").write_text("backup\n")
Path("src", "README.md~").write_text("backup\n")
cache = Path("src", name, "__pycache__")
cache.mkdir(parents=True)
(cache / "core.cpython-311.pyc").write_bytes(bytes(rng.getrandbits(8) for _ in range(64)))
# The checkout belongs to a developer, not root: a tar without owner settings records uid/gid 1000. A bwrap
# sandbox maps one uid only (chown fails there), so on that backend the sources stay the builder's own.
try:
    for p in [Path("src"), *Path("src").rglob("*")]:
        os.chown(p, 1000, 1000, follow_symlinks=False)
except OSError:
    pass
PY
