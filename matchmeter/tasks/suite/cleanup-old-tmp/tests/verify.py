"""cleanup-old-tmp verifier: old *.tmp files gone, everything else kept, deleted.txt lists them.
Deletion pays only while every file to keep is intact and the old .tmp files with a space in the name or
three levels deep are gone, so deleting every .tmp (or everything) earns
nothing; the report must list exactly what is really gone, and that must be the old .tmp files."""

import time

from verifylib import APP, grade, pristine, read

orig = pristine()
now = time.time()
files = {p.relative_to(orig).as_posix(): p for p in orig.rglob("*") if p.is_file()}
old_tmp = {k for k, p in files.items() if k.endswith(".tmp") and now - p.stat().st_mtime > 7 * 86400}
kept = set(files) - old_tmp


def intact():
    return all((APP / k).is_file() and (APP / k).read_bytes() == files[k].read_bytes() for k in kept)


# The old .tmp files a sloppy pass misses (a space in the name, three levels deep): the fraction pays only
# once they are gone.
hard = {k for k in old_tmp if " " in k.rsplit("/", 1)[-1] or k.count("/") >= 3}


def deleted():
    if not intact() or any((APP / k).exists() for k in hard):
        return 0.0
    return sum(not (APP / k).exists() for k in old_tmp) / len(old_tmp)


def others_kept():
    return deleted() == 1.0 and intact()


def report():
    text = read("deleted.txt")
    if text is None:
        return 0
    listed = {line.strip().removeprefix("./") for line in text.splitlines() if line.strip()}
    gone = {k for k in files if not (APP / k).exists()}
    return listed == old_tmp == gone


grade({"old_tmp_deleted": 0.4, "others_kept": 0.3, "report": 0.3},
      {"old_tmp_deleted": deleted, "others_kept": others_kept, "report": report})
