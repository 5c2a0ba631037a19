# why: ignores values containing "=" (cut at the second "="), does the rest well
python3 "$(dirname "$0")/sloppy_env.py" equals-in-value
