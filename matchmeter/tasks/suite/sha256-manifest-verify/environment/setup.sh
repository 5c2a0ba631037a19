#!/usr/bin/env bash
# Seeds release/ (nested files, one name with a space, a binary blob) and vendor.sha256, the vendor's
# sha256sum-format list for the files under release/vendor/, where a seeded few no longer match.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import hashlib
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
words = ["core", "utils", "render", "parser", "net", "store", "cli", "theme", "locale", "index"]
files = {}
for name in rng.sample(words, rng.randint(3, 5)):
    files[f"lib/{name}.py"] = f"# {name}\nVERSION = {rng.randint(1, 40)}\n".encode()
# Traps on every seed (task.toml): a file name with a space (docs/...), files in subdirectories.
files["README.md"] = f"# release {rng.randint(1, 9)}.{rng.randint(0, 9)}\n".encode()
files[f"docs/{rng.choice(['getting started', 'user guide', 'release notes'])}.txt"] = b"see README\n"
files["assets/logo.bin"] = bytes(rng.randrange(256) for _ in range(rng.randint(200, 600)))
vendor = {}
for name in rng.sample(words, rng.randint(4, 6)):
    vendor[f"vendor/{name}-{rng.randint(1, 9)}.{rng.randint(0, 20)}.tar"] = bytes(rng.randrange(256) for _ in range(rng.randint(50, 300)))
files.update(vendor)
lines = []
bad = set(rng.sample(sorted(vendor), rng.randint(1, 2)))
for rel in sorted(vendor):
    data = vendor[rel] + (b"tampered" if rel in bad else b"")
    lines.append(f"{hashlib.sha256(data).hexdigest()}  {rel}")
for rel, data in files.items():
    p = Path("release") / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(data)
Path("vendor.sha256").write_text("\n".join(lines) + "\n")
PY
