"""bundle-decode-files verifier: each bundle entry decoded byte-exact under unpacked/, 0755 ones executable."""

import base64
import json
import os

from verifylib import APP, grade, pristine

bundle = json.loads((pristine() / "bundle.json").read_text())
want = {}
for entry in bundle["files"]:
    raw = entry["content"]
    data = base64.b64decode(raw) if entry["encoding"] == "base64" else bytes.fromhex(raw)
    want[entry["path"]] = (data, entry["mode"] == "0755")


def exists():
    return sum((APP / "unpacked" / p).is_file() for p in want) / len(want)


def exact():
    return sum((APP / "unpacked" / p).is_file() and (APP / "unpacked" / p).read_bytes() == d
               for p, (d, _) in want.items()) / len(want)


def modes():
    scripts = [p for p, (_, x) in want.items() if x]
    others = [p for p, (_, x) in want.items() if not x]
    # Modes count only for files unpacked right: `touch` + `chmod +x` alone is no work.
    ok = all(os.access(APP / "unpacked" / p, os.X_OK) for p in scripts)
    return ok and exact() == 1 and all((APP / "unpacked" / p).is_file() for p in others)


grade({"files_present": 0.2, "bytes_exact": 0.55, "scripts_executable": 0.25},
      {"files_present": exists, "bytes_exact": exact, "scripts_executable": modes})
