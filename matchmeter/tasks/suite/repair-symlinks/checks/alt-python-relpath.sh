# why: Python os.readlink/os.path.relpath instead of find -xtype/ln -r; the report written first
python3 - <<'PY'
import os
broken = []
for d, dirs, files in os.walk("site"):
    for n in dirs + files:
        p = os.path.join(d, n)
        if os.path.islink(p) and not os.path.exists(p):
            broken.append(p)
fix, dead = {}, []
for p in sorted(broken):
    inner = os.readlink(p).split("static/", 1)[-1]
    target = os.path.join("assets", inner)
    (fix.__setitem__(p, target) if os.path.isfile(target) else dead.append(p))
with open("removed.txt", "w") as f:
    f.writelines(p + "\n" for p in dead)
for p in dead:
    os.remove(p)
for p, target in fix.items():
    os.remove(p)
    os.symlink(os.path.relpath(target, os.path.dirname(p)), p)
PY
