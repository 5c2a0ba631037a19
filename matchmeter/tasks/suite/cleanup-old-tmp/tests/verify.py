"""cleanup-old-tmp verifier: old *.tmp files gone, everything else kept, deleted.txt lists them."""

import time

from verifylib import APP, grade, pristine, read

orig = pristine()
now = time.time()
files = {p.relative_to(orig).as_posix(): p for p in orig.rglob("*") if p.is_file()}
old_tmp = {k for k, p in files.items() if k.endswith(".tmp") and now - p.stat().st_mtime > 7 * 86400}
kept = set(files) - old_tmp


def deleted():
    return sum(not (APP / k).exists() for k in old_tmp) / len(old_tmp)


def others_kept():
    ok = sum((APP / k).is_file() and (APP / k).read_bytes() == files[k].read_bytes() for k in kept)
    return deleted() > 0 and ok / len(kept)


def report():
    text = read("deleted.txt")
    if text is None:
        return 0
    listed = {line.strip().removeprefix("./") for line in text.splitlines() if line.strip()}
    return listed == old_tmp


grade({"old_tmp_deleted": 0.4, "others_kept": 0.3, "report": 0.3},
      {"old_tmp_deleted": deleted, "others_kept": others_kept, "report": report})
