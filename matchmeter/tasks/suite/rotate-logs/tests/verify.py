"""rotate-logs verifier: stale logs gzipped (bytes kept), fresh ones untouched, old archives pruned
except each service's two newest. Compression and deletion pay only if every fresh log is untouched, every
archive to keep survives and a stopped service's stale <svc>.log is compressed too, so gzipping or deleting
everything, or skipping a named case, earns nothing."""

import gzip
import time

from verifylib import APP, grade, pristine

orig = pristine()
now = time.time()
DAY = 86400
stale, fresh, archives = [], [], {}
for p in (orig / "logs").iterdir():
    age = (now - p.stat().st_mtime) / DAY
    if p.name.endswith(".gz"):
        archives[p.name] = age
    elif age > 1:
        stale.append(p.name)
        archives[p.name + ".gz"] = age
    else:
        fresh.append(p.name)
keep, drop = set(), set()
for svc in {n.split(".")[0] for n in archives}:
    mine = sorted((n for n in archives if n.split(".")[0] == svc), key=archives.get)
    for i, name in enumerate(mine):
        (keep if i < 2 or archives[name] <= 30 else drop).add(name)
logs = APP / "logs"


def content(name):
    """Bytes of a log as it must read after rotation (gz archives compared decompressed)."""
    src = orig / "logs" / (name[:-3] if name in [s + ".gz" for s in stale] else name)
    data = src.read_bytes()
    return gzip.decompress(data) if src.name.endswith(".gz") else data


def fresh_intact():
    return all((logs / n).is_file() and (logs / n).read_bytes() == (orig / "logs" / n).read_bytes() for n in fresh)


def kept_intact():
    return all((logs / n).is_file() and gzip.decompress((logs / n).read_bytes()) == content(n)
               for n in keep if n.removesuffix(".gz") not in stale)


def named_cases_kept():
    """Fresh logs untouched, each service's two newest archives kept (the retired one's too), and a stale
    <svc>.log (a stopped service's) compressed like the rotated ones: both fractions need all three."""
    main_logs = [n for n in stale if n.endswith(".log")]
    return fresh_intact() and kept_intact() and all((logs / (n + ".gz")).is_file() and not (logs / n).exists()
                                                    for n in main_logs)


def compressed():
    if not named_cases_kept():
        return 0.0
    good = 0
    for name in stale:
        gz = logs / (name + ".gz")
        good += not (logs / name).exists() and gz.is_file() and gzip.decompress(gz.read_bytes()) == content(name)
    return good / len(stale) if fresh_intact() else 0.0


def fresh_kept():
    return compressed() == 1.0 and fresh_intact()


def old_deleted():
    return sum(not (logs / n).exists() for n in drop) / len(drop) if named_cases_kept() else 0.0


def archives_kept():
    return old_deleted() == 1.0 and kept_intact()


grade({"compressed": 0.4, "fresh_kept": 0.15, "old_deleted": 0.25, "archives_kept": 0.2},
      {"compressed": compressed, "fresh_kept": fresh_kept, "old_deleted": old_deleted,
       "archives_kept": archives_kept})
