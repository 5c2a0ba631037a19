# why: ignores that a value is taken as it is (sed replacement: & and backslashes mangled), does the rest well
python3 "$(dirname "$0")/sloppy_letters.py" special-chars
