# why: ignores "each {{placeholder}}" (only the first occurrence of a placeholder replaced), does the rest well
python3 "$(dirname "$0")/sloppy_letters.py" repeated-placeholder
