# why: ignores "a later line for the same key wins" (the first line in a file wins), does the rest well
python3 "$(dirname "$0")/sloppy_env.py" later-line-wins
