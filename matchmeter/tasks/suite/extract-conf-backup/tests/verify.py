"""extract-conf-backup verifier: exactly the etc/**/*.conf members are restored with their bytes.
Restoring extra files, or missing one in etc/'s subdirectories, zeroes the extraction score (extracting
everything, or etc/ one level deep, is not the task); the
intact archive pays only with a complete, exact restore."""

import tarfile

from verifylib import APP, grade, pristine, read

orig = pristine()
with tarfile.open(orig / "backup.tar.xz") as tar:
    wanted = {m.name: tar.extractfile(m).read() for m in tar.getmembers()
              if m.isfile() and m.name.endswith(".conf") and "/etc/" in m.name}
restored = APP / "restored"


def extras():
    files = {p.relative_to(restored).as_posix() for p in restored.rglob("*") if p.is_file() or p.is_symlink()}
    return files - set(wanted)


# The members in etc/'s subdirectories (conf.d/): the fraction pays only once they are restored.
nested = [name for name in wanted if "/etc/" in name and "/" in name.split("/etc/", 1)[1]]


def extracted():
    if extras() or any(read(f"restored/{name}", "b") != wanted[name] for name in nested):
        return 0.0
    return sum(read(f"restored/{name}", "b") == data for name, data in wanted.items()) / len(wanted)


def nothing_else():
    return extracted() > 0 and not extras()


def archive_intact():
    return extracted() == 1 and read("backup.tar.xz", "b") == (orig / "backup.tar.xz").read_bytes()


grade({"extracted": 0.6, "nothing_else": 0.25, "archive_intact": 0.15},
      {"extracted": extracted, "nothing_else": nothing_else, "archive_intact": archive_intact})
