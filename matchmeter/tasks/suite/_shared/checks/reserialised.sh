#!/usr/bin/env bash
# A correct solution in other bytes, built at check time from the task's own oracle:
# `reserialised.sh SOLVE_SH OUTPUT...` runs SOLVE_SH (cwd = the seeded workspace), then rewrites each OUTPUT:
# JSON with sorted keys and indent 3, CSV with the other line ends (CRLF for LF, LF for CRLF), both allowed
# by an instruction that does not fix the bytes. An output this leaves byte-identical is emptied, so the check fails instead of passing as
# a replay of the oracle: it must show that the verifier reads the data, not the oracle's formatting.
set -euo pipefail
solve=${1:?usage: reserialised.sh SOLVE_SH OUTPUT... (a check passes $ORACLE_SH, which tests/tasks/harness.py sets)}
shift
bash "$solve"
python3 - "$@" <<'PY_END'
import csv, io, json, sys
from pathlib import Path

for rel in sys.argv[1:]:
    p = Path(rel)
    before = p.read_bytes()
    if p.suffix == ".json":
        p.write_text(json.dumps(json.loads(before), indent=3, sort_keys=True) + "\n")
    elif p.suffix == ".csv":
        out = io.StringIO()
        ends = "\n" if b"\r\n" in before else "\r\n"
        csv.writer(out, lineterminator=ends).writerows(csv.reader(io.StringIO(before.decode(), newline="")))
        p.write_text(out.getvalue(), newline="")
    if p.read_bytes() == before:
        p.write_bytes(b"")
        sys.exit(f"reserialised.sh: {rel} came out byte-identical; this task needs a hand-written alternative")
PY_END
