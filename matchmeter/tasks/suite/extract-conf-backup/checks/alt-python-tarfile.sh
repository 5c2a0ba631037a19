# why: Python tarfile with an explicit member filter instead of tar wildcards
python3 - <<'PY'
import os, tarfile
with tarfile.open("backup.tar.xz") as tar:
    for m in tar.getmembers():
        if m.isfile() and m.name.endswith(".conf") and "/etc/" in "/" + m.name:
            dest = os.path.join("restored", m.name)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as out:
                out.write(tar.extractfile(m).read())
PY
