#!/usr/bin/env bash
# Seeds build/ with sources, logs and .tmp files of seeded ages (old ones >= 10 days, fresh ones <= 5),
# plus traps on every seed: an old directory named like a .tmp file, an old file that only contains ".tmp"
# in its name, an old .tmp with a space in its name, one three levels deep, and a fresh .tmp.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import os
import random
import sys
import time
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
now = time.time()
words = ["parser", "lexer", "cache", "index", "render", "query", "shard", "blob", "chunk", "page"]


def put(path, age_days, text):
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    stamp = now - age_days * 86400 - rng.randint(0, 3600)
    os.utime(p, (stamp, stamp))


for w in rng.sample(words, 4):
    put(f"build/src/{w}.c", rng.randint(20, 60), f"/* {w} */ int {w}_id = {rng.randint(1, 999)};\n")
dirs = ["build/cache", "build/cache/objects", f"build/cache/{rng.choice(words)}", "build/tmp", "build/out"]
for i in range(rng.randint(12, 18)):
    d = rng.choice(dirs)
    old = rng.random() < 0.55
    age = rng.randint(10, 40) if old else rng.randint(0, 5)
    name = f"{rng.choice(words)}-{i}" + (" copy" if i % 7 == 3 else "") + ".tmp"
    put(f"{d}/{name}", age, "x" * rng.randint(10, 400) + "\n")
for i in range(3):
    put(f"build/out/{rng.choice(words)}-{i}.log", rng.randint(10, 40), "log line\n")
put(f"build/out/{rng.choice(words)}.tmp.keep", rng.randint(10, 40), "kept on purpose\n")
put(f"build/cache/session.tmp/{rng.choice(words)}.dat", rng.randint(10, 40), "data\n")
put("build/cache/fresh.tmp", 1, "fresh\n")
put("build/cache/stale.tmp", 30, "stale\n")
put(f"build/tmp/{rng.choice(words)} old.tmp", rng.randint(10, 40), "spaced\n")
put(f"build/cache/objects/{rng.choice(words)}-deep.tmp", rng.randint(10, 40), "deep\n")
stamp = now - rng.randint(10, 40) * 86400
os.utime("build/cache/session.tmp", (stamp, stamp))
PY
