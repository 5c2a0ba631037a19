# why: ignores "keep the changes that were made in the meantime" (the rejected hunk written over its place, old context and all), does the rest well
python3 "$(dirname "$0")/sloppy_patch.py" keep-drift
