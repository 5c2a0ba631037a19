#!/usr/bin/env bash
# Seeds db/app.sqlite with a notes table holding seeded rows.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sqlite3
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
Path("db").mkdir()
con = sqlite3.connect("db/app.sqlite")
con.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, author TEXT NOT NULL, body TEXT NOT NULL)")
bodies = ["restarted worker pool", "rotated logs", "bumped cache size", "patched kernel", "renewed certificate",
          "moved backups to cold storage", "cleared stuck jobs"]
for body in rng.sample(bodies, rng.randint(3, 5)):
    con.execute("INSERT INTO notes (author, body) VALUES (?, ?)", (rng.choice(["ana", "ben", "kim"]), body))
con.commit()
con.close()
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
