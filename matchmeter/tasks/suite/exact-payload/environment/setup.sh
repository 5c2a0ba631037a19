#!/usr/bin/env bash
# Seeds out/ with an outdated payload.sh (seeded content) and a seeded notes file; the target bytes
# are fixed by the instruction.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
Path("out").mkdir(exist_ok=True)
build = rng.randint(100, 999)
Path("out/payload.sh").write_text(f"#!/bin/sh\n# build {build} (outdated)\necho old-{rng.randint(1000, 9999)}\n")
Path("out/NOTES").write_text(f"payload generator notes, release {build}\nowner: {rng.choice(['ana', 'ben', 'kim'])}\n")
PY
