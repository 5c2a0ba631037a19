#!/usr/bin/env bash
# Builds bin/crontab (a stand-in for crontab(1): -l lists, FILE or - installs) and a seeded installed
# crontab in spool/crontab.
set -euo pipefail
mkdir -p bin spool
cat > bin/crontab <<'SH'
#!/usr/bin/env bash
# usage: bin/crontab -l | bin/crontab FILE | bin/crontab -   (list, or install FILE / stdin as the new crontab)
tab="$(cd "$(dirname "$0")/.." && pwd)/spool/crontab"
case "${1:-}" in
  -l) cat "$tab" ;;
  -) cat > "$tab.new" && mv "$tab.new" "$tab" ;;
  "") echo "usage: bin/crontab -l | FILE | -" >&2; exit 2 ;;
  *) cp "$1" "$tab.new" && mv "$tab.new" "$tab" ;;
esac
SH
chmod +x bin/crontab
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
jobs = ["/opt/app/bin/sync-mirror", "/opt/app/bin/vacuum-db --quick", "/opt/app/bin/send-digest",
        "/opt/app/bin/prune-cache 30", "/opt/app/bin/check-certs"]
lines = [f"MAILTO={rng.choice(['ops', 'alerts', 'admin'])}@example.com", ""]
lines += [f"{rng.randint(0, 59)} {rng.randint(0, 23)} * * {rng.choice(['*', '1-5', '0'])} {job}"
          for job in rng.sample(jobs, 3)]
Path("spool/crontab").write_text("\n".join(lines) + "\n")
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
