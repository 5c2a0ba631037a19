"""du-top-dirs verifier: usage.txt names the three largest data/ projects in order, with their sizes.
A size counts only on a line whose rank is right, and the format only when all three ranks are."""

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


def names_ranked():
    got = [name for _, name in rows()]
    return sum(i < len(got) and got[i] == top[i] for i in range(3)) / 3


def sizes_right():
    # du -sb also counts directory entries (a few kB each); the totals are 25 kB apart, so allow that.
    got = rows()[:3]
    good = sum(size is not None and name == top[i] and abs(size - sizes[name]) <= 4096 * ndirs[name]
               for i, (size, name) in enumerate(got))
    return good / 3


def exactly_three():
    got = rows()
    return names_ranked() == 1 and len(got) == 3 and all(size is not None for size, _ in got)


grade({"top_three_ranked": 0.5, "sizes": 0.3, "format": 0.2},
      {"top_three_ranked": names_ranked, "sizes": sizes_right, "format": exactly_three})
