#!/usr/bin/env bash
# Builds backup.tar.xz (fixed mtimes, root-owned, sorted members) of a seeded application tree:
# .conf files under srv/<app>/etc/ (some nested in conf.d/), plus decoys: .conf.bak and .conf.example
# files, a .conf outside etc/, logs and data files.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import io
import random
import sys
import tarfile

rng = random.Random(int(sys.argv[1]))
app = rng.choice(["billing", "portal", "relay", "archive", "tracker"])
words = ["db", "cache", "smtp", "auth", "queue", "proxy", "limits", "tls", "metrics", "logging", "paths"]
files = {}
for w in rng.sample(words, rng.randint(3, 5)):
    files[f"srv/{app}/etc/{w}.conf"] = f"[{w}]\nenabled = {rng.choice(['yes', 'no'])}\nvalue = {rng.randint(1, 500)}\n"
for w in rng.sample(words, rng.randint(2, 3)):
    files[f"srv/{app}/etc/conf.d/{rng.randint(10, 99)}-{w}.conf"] = f"# drop-in {w}\n{w}_max = {rng.randint(1, 99)}\n"
some = rng.choice(sorted(files))
files[some + ".bak"] = "# old copy\n" + files[some]
files[f"srv/{app}/etc/{rng.choice(words)}.conf.example"] = "# example only\n"
files[f"srv/{app}/etc/motd.txt"] = "welcome\n"
files[f"srv/{app}/share/samples/{rng.choice(words)}.conf"] = "# sample shipped with the package\n"
for i in range(rng.randint(2, 4)):
    files[f"srv/{app}/log/{app}.log.{i}"] = f"log {i} " * rng.randint(10, 200) + "\n"
files[f"srv/{app}/data/records.csv"] = "id,value\n" + "".join(f"{i},{rng.randint(0, 99)}\n" for i in range(50))
dirs = sorted({"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)})
with tarfile.open("backup.tar.xz", "w:xz", format=tarfile.GNU_FORMAT) as tar:
    for name in sorted(dirs + list(files)):
        info = tarfile.TarInfo(name)
        info.mtime, info.uid, info.gid, info.uname, info.gname = 1714557600, 0, 0, "root", "root"
        if name in files:
            data = files[name].encode()
            info.size, info.mode = len(data), 0o640
            tar.addfile(info, io.BytesIO(data))
        else:
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
PY
