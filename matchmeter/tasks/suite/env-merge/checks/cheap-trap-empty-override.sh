# why: ignores "even when it sets a value to empty" (an empty value does not override), does the rest well
python3 "$(dirname "$0")/sloppy_env.py" empty-override
