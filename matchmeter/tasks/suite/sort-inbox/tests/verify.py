"""sort-inbox verifier: each inbox file sits in sorted/<lower ext>/ with its bytes; inbox is empty.
Placing pays only once every file with an upper-case extension, none, two dots or a space is placed; an
empty inbox only once every file is (deleting or dumping the inbox is not the task)."""

from verifylib import APP, grade, pristine

orig = pristine()
files = {p.name: p.read_bytes() for p in (orig / "inbox").iterdir() if p.is_file()}


def target(name):
    ext = name.rsplit(".", 1)[1].lower() if "." in name else "no_extension"
    return APP / "sorted" / ext / name


# The names a named rule decides (an upper-case extension, none, two dots, a space): placing pays only once
# all of them are placed.
hard = [n for n in files if "." not in n or n.count(".") > 1 or " " in n or n.rsplit(".", 1)[1] != n.rsplit(".", 1)[1].lower()]


def placed():
    if not all(target(n).is_file() for n in hard):
        return 0
    return sum(target(n).is_file() for n in files) / len(files)


def intact():
    present = [n for n in files if target(n).is_file()]
    return bool(present) and all(target(n).read_bytes() == files[n] for n in present) and placed()


def inbox_empty():
    inbox = APP / "inbox"
    return placed() == 1 and (not inbox.exists() or not any(p.is_file() for p in inbox.rglob("*")))


grade({"files_placed": 0.6, "contents_intact": 0.2, "inbox_empty": 0.2},
      {"files_placed": placed, "contents_intact": intact, "inbox_empty": inbox_empty})
