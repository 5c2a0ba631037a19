# why: Python tarfile + gzip.GzipFile(mtime=0) instead of GNU tar flags; members added in sorted path order
python3 - <<'PY'
import gzip, io, os, re, tarfile
conf = dict(re.findall(r"^(\w+) = (\S+)$", open("release.conf").read(), re.M))
prefix, epoch = f"{conf['name']}-{conf['version']}", int(conf["source_date_epoch"])
paths = []
for d, dirs, names in os.walk("src"):
    dirs[:] = [x for x in dirs if x != "__pycache__"]
    paths += [os.path.join(d, x) for x in dirs] + [os.path.join(d, n) for n in names if not n.endswith("~")]
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
    for p in ["src"] + sorted(paths):
        info = tar.gettarinfo(p, arcname=prefix + p[len("src"):])
        info.mtime, info.uid, info.gid, info.uname, info.gname = epoch, 0, 0, "root", "root"
        if info.isfile():
            with open(p, "rb") as f:
                tar.addfile(info, f)
        else:
            tar.addfile(info)
os.makedirs("dist", exist_ok=True)
with open(f"dist/{prefix}.tar.gz", "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
    gz.write(buf.getvalue())
PY
