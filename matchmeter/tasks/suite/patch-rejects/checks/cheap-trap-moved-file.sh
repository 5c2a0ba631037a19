# why: ignores that settings.ini moved (the patch applied with its old path, so those changes are skipped), does the rest well
python3 "$(dirname "$0")/sloppy_patch.py" moved-file
