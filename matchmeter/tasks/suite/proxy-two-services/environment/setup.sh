#!/usr/bin/env bash
# Seeds services.conf ([frontend] port 30000-39999 first, then [backend] port 20000-29999) and data/quotes.json
# (seeded ids, authors and texts). Nothing is started here.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import json
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
backend, frontend = rng.randint(20000, 29999), rng.randint(30000, 39999)
# every seed: [frontend] comes first, so the port lines are not in the order the instruction lists the services
Path("services.conf").write_text(f"# two cooperating services on loopback\n[frontend]\nport = {frontend}\n\n[backend]\nport = {backend}\n")
authors = ["Ada", "Grace", "Linus", "Barbara", "Ken", "Margaret", "Edsger", "Frances"]
words = ["simple", "code", "data", "bugs", "tests", "time", "design", "users", "errors", "caches", "names", "state"]
quotes = []
for _ in range(rng.randint(6, 14)):
    qid = f"q{rng.randint(100, 999)}"
    if any(q["id"] == qid for q in quotes):
        continue
    text = " ".join(rng.choice(words) for _ in range(rng.randint(4, 9))).capitalize() + "."
    quotes.append({"id": qid, "author": rng.choice(authors), "text": text, "year": rng.randint(1950, 2020)})
Path("data").mkdir()
Path("data/quotes.json").write_text(json.dumps(quotes, indent=2) + "\n")
PY
