# why: ignores dotfiles (a shell glob skips them), does the rest well
python3 "$(dirname "$0")/sloppy_treediff.py" hidden-files
