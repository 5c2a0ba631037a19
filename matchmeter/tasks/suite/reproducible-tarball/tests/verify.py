"""reproducible-tarball verifier: dist/<name>-<version>.tar.gz holds src/ minus clutter under the
right prefix, sorted, with fixed mtime and root ownership, and a gzip header without time or name.
Order, metadata and gzip header pay only all together and with the contents right (the reproducibility
the task is about needs every one of them): a plain `tar -czf` gets its gzip header and maybe its order
for free, and a build that skips one setting is not reproducible."""

import re
import tarfile

from verifylib import APP, grade, pristine

orig = pristine()
conf = dict(re.findall(r"^(\w+) = (\S+)$", (orig / "release.conf").read_text(), re.M))
prefix = f"{conf['name']}-{conf['version']}"
epoch = int(conf["source_date_epoch"])
expected = {f"{prefix}/{p.relative_to(orig / 'src').as_posix()}": p.read_bytes()
            for p in (orig / "src").rglob("*")
            if p.is_file() and not p.name.endswith("~") and "__pycache__" not in p.parts}
archive = APP / "dist" / f"{prefix}.tar.gz"


def members():
    with tarfile.open(archive, "r:gz") as tar:
        out = []
        for m in tar.getmembers():
            data = tar.extractfile(m).read() if m.isfile() else None
            out.append((m.name.removeprefix("./").rstrip("/"), m, data))
        return out


def contents():
    got = {name: data for name, m, data in members() if m.isfile()}
    good = sum(got.get(name) == data for name, data in expected.items()) / len(expected)
    stray = set(got) - set(expected) or any(not (n == prefix or n.startswith(prefix + "/")) for n, _, _ in members())
    return good * (0.5 if stray else 1)


def ordered():
    names = [n for n, _, _ in members()]
    return names == sorted(names) or names == sorted(names, key=lambda n: n.split("/"))


def fixed_metadata():
    return all(m.mtime == epoch and m.uid == 0 and m.gid == 0 and m.uname in ("", "root") and m.gname in ("", "root")
               for _, m, _ in members())


def clean_header():
    head = archive.read_bytes()[:10]
    return head[:2] == b"\x1f\x8b" and head[4:8] == b"\0\0\0\0" and not head[3] & 0x08


def reproducible():
    """Byte-identical rebuilds need every setting at once, so order, metadata and header pay together."""
    return contents() > 0.5 and ordered() and fixed_metadata() and clean_header()


grade({"contents": 0.2, "sorted": 0.2, "metadata": 0.4, "gzip_header": 0.2},
      {"contents": contents, "sorted": reproducible, "metadata": reproducible, "gzip_header": reproducible})
