# why: ignores "leave editor backups (*~) out" (they are packed), does the rest well
python3 "$(dirname "$0")/sloppy_tarball.py" editor-backups
