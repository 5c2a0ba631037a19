# why: Python os.scandir + shutil.move instead of a shell loop
python3 - <<'PY'
import os, shutil
for e in os.scandir("inbox"):
    if e.is_file(follow_symlinks=False):
        ext = e.name.rsplit(".", 1)[1].lower() if "." in e.name else "no_extension"
        os.makedirs(os.path.join("sorted", ext), exist_ok=True)
        shutil.move(e.path, os.path.join("sorted", ext, e.name))
PY
