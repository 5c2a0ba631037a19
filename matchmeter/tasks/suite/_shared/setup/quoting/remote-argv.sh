#!/usr/bin/env bash
# Builds bin/remote (runs its argument on the "remote host" the way `ssh host CMD` does: the remote
# shell parses the string again; like sshd it logs the command line it received, to remote/calls.log) and
# remote/bin/record (logs its argv, NUL-separated, to remote/argv.log).
set -euo pipefail
mkdir -p bin remote/bin
cat > bin/remote <<'SH'
#!/usr/bin/env bash
# usage: bin/remote 'COMMAND LINE'  -- runs COMMAND LINE on the build host, like `ssh buildhost 'COMMAND LINE'`:
# the remote side parses the string again with its own shell (bash -c "$1"), in its home directory.
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ "$#" -ne 1 ]; then echo "usage: bin/remote 'COMMAND LINE'" >&2; exit 2; fi
printf '%s\0' "$1" >> "$root/remote/calls.log"
cd "$root/remote" && PATH="$root/remote/bin:$PATH" MM_VIA_REMOTE=1 exec bash -c "$1"
SH
cat > remote/bin/record <<'SH'
#!/usr/bin/env bash
# record ARG...: stores how it was called (via remote or not, the argument count, every argument) in argv.log
printf '%s\0' "${MM_VIA_REMOTE:-direct}" "$#" "$@" > "$(dirname "$0")/../argv.log"
echo "record: got $# argument(s)"
SH
chmod +x bin/remote remote/bin/record
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
host = f"{rng.choice(['build', 'ci', 'batch'])}-{rng.randint(1, 40):02d}"
Path("remote/hostname").write_text(host + "\n")
Path("remote/motd").write_text(f"Welcome to {host}. Disk {rng.randint(20, 90)}% used.\n")
PY

# The trial's ticket id, part of the payload (quoting.py beside the verifier computes the same id from MM_SEED).
python3 -c 'import hashlib, sys; print("T" + str(int(hashlib.sha256(f"quoting-ticket-{sys.argv[1]}".encode()).hexdigest(), 16) % 90000 + 10000))' "$MM_SEED" > TICKET
