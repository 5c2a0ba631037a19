"""repair-symlinks verifier: broken links now resolve into assets/, dead ones are removed and listed.
The repair pays only with the named cases kept (dead links gone, absolute static/ targets repaired, working
links unchanged), the removal and its report only beside some repair; removing dead links pays only when
no repairable link was removed with them (deleting every broken link is not the task); untouched pays
only with every repair done."""

import os

from verifylib import APP, grade, pristine, read

orig = pristine()
fixable, dead, working = {}, [], {}
for link in (orig / "site").rglob("*"):
    if not link.is_symlink():
        continue
    rel = link.relative_to(orig).as_posix()
    target = str(link.readlink())
    if "/assets/" in target:
        working[rel] = target
    else:
        inner = target.split("static/", 1)[1]
        if (orig / "assets" / inner).is_file():
            fixable[rel] = inner
        else:
            dead.append(rel)
asset_bytes = {p.relative_to(orig).as_posix(): p.read_bytes() for p in (orig / "assets").rglob("*") if p.is_file()}


def named_cases_kept():
    """The cases the instruction names: dead links gone, links to /srv/www/static/ repaired, working links
    unchanged. The repair pays only with all three."""
    dead_gone = not any(os.path.lexists(APP / rel) for rel in dead)
    absolute = all((APP / rel).is_symlink() and os.path.realpath(APP / rel) == os.path.realpath(APP / "assets" / inner)
                   for rel, inner in fixable.items() if str((orig / rel).readlink()).startswith("/"))
    kept = all((APP / rel).is_symlink() and str((APP / rel).readlink()) == t for rel, t in working.items())
    return dead_gone and absolute and kept


def repaired():
    if not named_cases_kept():
        return 0
    good = 0
    for rel, inner in fixable.items():
        p = APP / rel
        good += p.is_symlink() and os.path.realpath(p) == os.path.realpath(APP / "assets" / inner)
    return good / len(fixable)


def dead_removed():
    return repaired() > 0 and all((APP / rel).is_symlink() for rel in fixable) and not any(os.path.lexists(APP / rel) for rel in dead)


def report():
    lines = {ln.strip().removeprefix("./") for ln in (read("removed.txt") or "").splitlines() if ln.strip()}
    return repaired() > 0 and lines == set(dead)


def untouched():
    links_ok = all((APP / rel).is_symlink() and str((APP / rel).readlink()) == t for rel, t in working.items())
    assets_ok = all(read(rel, "b") == data and not (APP / rel).is_symlink() for rel, data in asset_bytes.items())
    return repaired() == 1 and links_ok and assets_ok


grade({"repaired": 0.5, "dead_removed": 0.2, "report": 0.15, "untouched": 0.15},
      {"repaired": repaired, "dead_removed": dead_removed, "report": report, "untouched": untouched})
