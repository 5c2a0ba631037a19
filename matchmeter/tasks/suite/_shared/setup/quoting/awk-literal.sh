#!/usr/bin/env bash
# Seeds data/log.txt (seeded lines) and an existing tools/count.awk that must stay as it is.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
Path("data").mkdir()
Path("tools").mkdir()
events = ["import started", "rows read", "rows rejected", "import finished", "index rebuilt"]
lines = [f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {rng.choice(events)} {rng.randint(1, 999)}"
         for _ in range(rng.randint(4, 8))]
Path("data/log.txt").write_text("\n".join(lines) + "\n")
Path("tools/count.awk").write_text("# counts lines per event\n{ n[$2]++ }\nEND { for (k in n) print k, n[k] }\n")
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
