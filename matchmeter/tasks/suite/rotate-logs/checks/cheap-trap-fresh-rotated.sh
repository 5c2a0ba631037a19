# why: ignores the fresh rotated logs (every <svc>.log.N compressed, whatever its age), does the rest well
python3 - <<'PY'
import gzip, os, time
from pathlib import Path
now = time.time()
for p in Path("logs").iterdir():
    if not p.name.endswith(".gz") and (".log." in p.name or now - p.stat().st_mtime > 86400):
        st = p.stat()
        Path(str(p) + ".gz").write_bytes(gzip.compress(p.read_bytes(), mtime=0))
        os.utime(str(p) + ".gz", (st.st_atime, st.st_mtime))
        p.unlink()
by = {}
for p in Path("logs").glob("*.gz"):
    by.setdefault(p.name.split(".")[0], []).append(p)
for files in by.values():
    files.sort(key=lambda q: q.stat().st_mtime, reverse=True)
    for q in files[2:]:
        if now - q.stat().st_mtime > 30 * 86400:
            q.unlink()
PY
