"""sha256-manifest-verify verifier: SHA256SUMS covers release/ exactly; corrupt.txt names the mismatches."""

import hashlib
import re

from verifylib import grade, pristine, read

orig = pristine()
release = orig / "release"
truth = {p.relative_to(release).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
         for p in release.rglob("*") if p.is_file()}
bad = set()
for line in (orig / "vendor.sha256").read_text().splitlines():
    digest, rel = line.split("  ", 1)
    if truth.get(rel) != digest:
        bad.add(rel)
LINE = re.compile(r"^([0-9a-f]{64}) [ *](?:\./)?(.+)$")


def entries():
    lines = [ln for ln in read("SHA256SUMS").splitlines() if ln.strip()]
    return [LINE.match(ln) for ln in lines]


def formatted():
    found = entries()
    return bool(found) and all(found)


def complete():
    pairs = [(m.group(2), m.group(1)) for m in entries() if m]
    names = [n for n, _ in pairs]
    if len(names) != len(set(names)) or set(names) - set(truth):
        return 0.0
    return sum(truth[n] == d for n, d in pairs) / len(truth)


def corrupt():
    listed = {ln.strip() for ln in read("corrupt.txt").splitlines() if ln.strip()}
    return listed == bad


def traps():
    """The named traps (task.toml) all handled: every entry named relative to release/, every file whose path
    has a space listed with its digest. A sloppy answer fails one and is paid nothing."""
    try:
        pairs = {m.group(2): m.group(1) for m in entries() if m}
    except Exception:  # noqa: BLE001 - no readable manifest handles no trap
        return False
    spaced = [n for n in truth if " " in n]
    return bool(pairs) and set(pairs) <= set(truth) and all(pairs.get(n) == truth[n] for n in spaced)


def gated(check):
    return lambda: check() if traps() else 0.0


grade({"manifest_format": 0.15, "manifest_complete": 0.5, "corrupt_listed": 0.35},
      {"manifest_format": gated(formatted), "manifest_complete": gated(complete), "corrupt_listed": gated(corrupt)})
