# why: ignores "the command exactly as written" (its inner whitespace squeezed), does the rest well
python3 "$(dirname "$0")/sloppy_cron.py" command-spacing
