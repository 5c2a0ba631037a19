# why: Python os.walk + stat instead of find, list written before deleting
python3 - <<'PY'
import os, time
cutoff = time.time() - 7 * 86400
old = []
for d, _, names in os.walk("build"):
    for n in names:
        p = os.path.join(d, n)
        if n.endswith(".tmp") and os.path.isfile(p) and not os.path.islink(p) and os.stat(p).st_mtime < cutoff:
            old.append(p)
with open("deleted.txt", "w") as f:
    f.writelines(p + "\n" for p in sorted(old))
for p in old:
    os.remove(p)
PY
