# why: ignores the 0755 modes (files written, no chmod), does the rest well
python3 - <<'PY'
import base64, json, os
from pathlib import Path
for e in json.load(open("bundle.json"))["files"]:
    raw = e["content"]
    data = base64.b64decode(raw) if e["encoding"] == "base64" else bytes.fromhex(raw)
    out = Path("unpacked") / e["path"]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    pass
PY
