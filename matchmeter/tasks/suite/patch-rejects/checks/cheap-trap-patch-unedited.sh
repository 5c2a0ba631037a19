# why: ignores "don't edit the patch file itself" (the settings path fixed in place), does the rest well
python3 "$(dirname "$0")/sloppy_patch.py" patch-unedited
