# why: Python gzip/os.stat instead of find/gzip; compressed copies keep the log's mtime
python3 - <<'PY'
import gzip, os, shutil, time
from pathlib import Path
logs, now, day = Path("logs"), time.time(), 86400
for p in sorted(logs.iterdir()):
    if not p.name.endswith(".gz") and now - p.stat().st_mtime > day:
        gz = p.with_name(p.name + ".gz")
        with p.open("rb") as src, gzip.open(gz, "wb") as dst:
            shutil.copyfileobj(src, dst)
        shutil.copystat(p, gz)
        p.unlink()
by_service = {}
for p in logs.glob("*.gz"):
    by_service.setdefault(p.name.split(".")[0], []).append(p)
for files in by_service.values():
    files.sort(key=lambda f: f.stat().st_mtime, reverse=True)
    for f in files[2:]:
        if now - f.stat().st_mtime > 30 * day:
            f.unlink()
PY
