"""sort-inbox verifier: each inbox file sits in sorted/<lower ext>/ with its bytes; inbox is empty.
An empty inbox pays only once every file is placed (deleting or dumping the inbox is not the task)."""

from verifylib import APP, grade, pristine

orig = pristine()
files = {p.name: p.read_bytes() for p in (orig / "inbox").iterdir() if p.is_file()}


def target(name):
    ext = name.rsplit(".", 1)[1].lower() if "." in name else "no_extension"
    return APP / "sorted" / ext / name


def placed():
    return sum(target(n).is_file() for n in files) / len(files)


def intact():
    present = [n for n in files if target(n).is_file()]
    return bool(present) and all(target(n).read_bytes() == files[n] for n in present) and len(present) / len(files)


def inbox_empty():
    inbox = APP / "inbox"
    return placed() == 1 and (not inbox.exists() or not any(p.is_file() for p in inbox.rglob("*")))


grade({"files_placed": 0.6, "contents_intact": 0.2, "inbox_empty": 0.2},
      {"files_placed": placed, "contents_intact": intact, "inbox_empty": inbox_empty})
