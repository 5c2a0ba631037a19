#!/usr/bin/env bash
# Builds bin/notify (prints its two arguments through the printf format stored in conf/notify.fmt) and a
# seeded old format.
set -euo pipefail
mkdir -p bin conf
cat > bin/notify <<'SH'
#!/usr/bin/env bash
# usage: bin/notify NAME COUNT  -- prints one line: printf with the format in conf/notify.fmt, then NAME COUNT
fmt="$(cat "$(dirname "$0")/../conf/notify.fmt")"
printf -- "$fmt\n" "$1" "$2"
SH
chmod +x bin/notify
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
Path("conf/notify.fmt").write_text(rng.choice(["%s: %s", "[%s] %s new", "%s has %s"]))
Path("conf/users").write_text("\n".join(rng.sample(["ana", "ben", "kim", "lee", "max"], 3)) + "\n")
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
