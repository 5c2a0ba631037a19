# why: ignores "files" (an empty directory only in new listed as added), does the rest well
python3 "$(dirname "$0")/sloppy_treediff.py" dirs-not-files
