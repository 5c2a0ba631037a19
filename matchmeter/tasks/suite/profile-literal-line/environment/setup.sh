#!/usr/bin/env bash
# Seeds config/profile.env (seeded exports and comments, ending with a newline) and config/secrets.env.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
names = ["EDITOR", "PAGER", "LANG", "TZ", "APP_ENV", "HISTSIZE", "GOPATH", "NODE_OPTIONS"]
values = {"EDITOR": "vim", "PAGER": "less -R", "LANG": "en_US.UTF-8", "TZ": rng.choice(["UTC", "Europe/Berlin"]),
          "APP_ENV": rng.choice(["dev", "staging"]), "HISTSIZE": str(rng.randint(1000, 9000)),
          "GOPATH": "$HOME/go", "NODE_OPTIONS": f"--max-old-space-size={rng.choice([2048, 4096])}"}
lines = [f"# shell profile for {rng.choice(['ana', 'ben', 'kim', 'lee'])} -- sourced by login shells"]
for n in rng.sample(names, rng.randint(4, 7)):
    lines.append(f'export {n}="{values[n]}"')
    if rng.random() < 0.3:
        lines.append(f"# {n.lower()} set {rng.randint(2019, 2024)}")
Path("config").mkdir(exist_ok=True)
Path("config/profile.env").write_text("\n".join(lines) + "\n")
Path("config/secrets.env").write_text(f"export API_TOKEN=tok_{rng.getrandbits(64):016x}\n")
PY
