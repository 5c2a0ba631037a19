#!/usr/bin/env bash
# why: hashlib instead of sha256sum, the manifest in reverse path order (sha256sum -c takes any order)
set -euo pipefail
python3 - <<'EOF'
import hashlib, os
digest = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
files = sorted((os.path.relpath(os.path.join(d, n), "release") for d, _, ns in os.walk("release") for n in ns),
               reverse=True)
open("SHA256SUMS", "w").write("".join(f"{digest(os.path.join('release', f))}  {f}\n" for f in files))
bad = []
for line in open("vendor.sha256"):
    if line.strip():
        want, name = line.rstrip("\n").split(None, 1)
        name = name.lstrip("*")
        path = os.path.join("release", name)
        if not os.path.isfile(path) or digest(path) != want:
            bad.append(name)
open("corrupt.txt", "w").write("".join(b + "\n" for b in bad))
EOF
