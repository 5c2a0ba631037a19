"""du-top-dirs verifier: usage.txt names the three largest data/ projects in order, with their sizes.
A rank counts only with its size in bytes right, a size only on a line whose rank is right, and the format
only when all three ranks are."""

import re

from verifylib import grade, pristine, read

orig = pristine()
sizes, ndirs = {}, {}
for project in (orig / "data").iterdir():
    if project.is_dir():
        sizes[project.name] = sum(p.stat().st_size for p in project.rglob("*") if p.is_file())
        ndirs[project.name] = 1 + sum(p.is_dir() for p in project.rglob("*"))
top = sorted(sizes, key=sizes.get, reverse=True)[:3]


def rows():
    out = []
    for line in (read("usage.txt") or "").splitlines():
        m = re.fullmatch(r"\s*(\d+)\s+(?:\./)?(?:data/)?([\w.-]+)/?\s*", line)
        if line.strip():
            out.append((int(m.group(1)), m.group(2)) if m else (None, line.strip()))
    return out


def size_ok(size, name):
    # du -sb also counts directory entries (a few kB each); the totals are 25 kB apart, so allow that.
    return size is not None and name in sizes and abs(size - sizes[name]) <= 4096 * ndirs[name]


def names_ranked():
    """A rank counts when its name is right and so is its size in bytes (kilobytes, or a total without hidden
    files, rank nothing)."""
    got = rows()
    return sum(i < len(got) and got[i][1] == top[i] and size_ok(*got[i]) for i in range(3)) / 3


def sizes_right():
    got = rows()[:3]
    return sum(name == top[i] and size_ok(size, name) for i, (size, name) in enumerate(got)) / 3


def exactly_three():
    got = rows()
    return names_ranked() == 1 and len(got) == 3 and all(size is not None for size, _ in got)


grade({"top_three_ranked": 0.5, "sizes": 0.3, "format": 0.2},
      {"top_three_ranked": names_ranked, "sizes": sizes_right, "format": exactly_three})
