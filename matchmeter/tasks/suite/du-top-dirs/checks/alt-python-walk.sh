# why: Python os.walk summing file sizes instead of du/find
python3 - <<'PY'
import os
sizes = {}
for entry in os.scandir("data"):
    if entry.is_dir(follow_symlinks=False):
        sizes[entry.name] = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(entry.path) for f in fs)
with open("usage.txt", "w") as out:
    for name in sorted(sizes, key=sizes.get, reverse=True)[:3]:
        out.write(f"{sizes[name]} {name}\n")
PY
