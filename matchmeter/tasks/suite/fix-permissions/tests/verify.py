"""fix-permissions verifier: site/ dirs 755, files 644, site/bin/*.sh 755; contents and vendor/ unchanged.
Scripts pay only when plain files are 644 too (telling them apart is the work: `chmod -R 755` must not
collect them), directories and files only when the exception is exact (every site/bin/*.sh 755, site/bin's
other files and any *.sh elsewhere 644) and vendor/ keeps its modes, intact only when every mode is right."""

import stat

from verifylib import APP, grade, pristine

orig = pristine()


def mode(p):
    return stat.S_IMODE(p.lstat().st_mode)


site_dirs = [p.relative_to(orig) for p in [orig / "site", *(orig / "site").rglob("*")] if p.is_dir()]
site_files = [p.relative_to(orig) for p in (orig / "site").rglob("*") if p.is_file()]
scripts = [p for p in site_files if p.parent.as_posix() == "site/bin" and p.name.endswith(".sh")]
plain = [p for p in site_files if p not in scripts]
vendor = {p.relative_to(orig): mode(p) for p in [orig / "vendor", *(orig / "vendor").rglob("*")]}


def fraction(paths, want):
    return sum((APP / p).exists() and mode(APP / p) == want for p in paths) / len(paths)


def exception_exact():
    """The instruction's exception, no wider and no narrower: site/bin/*.sh 755, the rest of site/bin/ and every
    *.sh outside it 644."""
    bin_other = [p for p in plain if p.parent.as_posix() == "site/bin" or p.name.endswith(".sh")]
    return fraction(scripts, 0o755) == 1 and fraction(bin_other, 0o644) == 1


def vendor_kept():
    return all((APP / p).exists() and mode(APP / p) == m for p, m in vendor.items())


def gated(score):
    return score() if exception_exact() and vendor_kept() else 0


def changed_something():
    return any((APP / p).exists() and mode(APP / p) != mode(orig / p) for p in site_dirs + site_files)


def intact():
    same = all((APP / p).is_file() and (APP / p).read_bytes() == (orig / p).read_bytes() for p in site_files)
    modes_right = all(fraction(paths, want) == 1 for paths, want in ((site_dirs, 0o755), (plain, 0o644), (scripts, 0o755)))
    return changed_something() and modes_right and same and vendor_kept()


grade({"directories": 0.25, "files": 0.4, "scripts": 0.2, "intact": 0.15},
      {"directories": lambda: gated(lambda: fraction(site_dirs, 0o755)), "files": lambda: gated(lambda: fraction(plain, 0o644)),
       "scripts": lambda: fraction(scripts, 0o755) if fraction(plain, 0o644) == 1 and vendor_kept() else 0,
       "intact": intact})
