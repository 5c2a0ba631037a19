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


def traps():
    """The named traps (task.toml) all handled: every hex entry and every non-UTF-8 payload byte-exact, every
    0755 script executable. A sloppy answer fails one and is paid nothing, so skipping a trap never pays."""
    encodings = {e["path"]: e["encoding"] for e in bundle["files"]}
    for p, (data, script) in want.items():
        f = APP / "unpacked" / p
        binary = False
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            binary = True
        if (encodings[p] == "hex" or binary) and not (f.is_file() and f.read_bytes() == data):
            return False
        if script and not os.access(f, os.X_OK):
            return False
    return True


def gated(check):
    return lambda: check() if traps() else 0.0


grade({"files_present": 0.2, "bytes_exact": 0.55, "scripts_executable": 0.25},
      {"files_present": gated(exists), "bytes_exact": gated(exact), "scripts_executable": gated(modes)})
