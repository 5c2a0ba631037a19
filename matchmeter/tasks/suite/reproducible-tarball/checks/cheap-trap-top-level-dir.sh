# why: ignores the top-level <name>-<version>/ directory (src/'s contents packed at the root), does the rest well
python3 "$(dirname "$0")/sloppy_tarball.py" top-level-dir
