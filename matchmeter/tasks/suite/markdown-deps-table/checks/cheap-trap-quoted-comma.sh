# why: ignores CSV quoting (lines split on every comma, so a note with a comma shifts the scope column), does the rest well
python3 "$(dirname "$0")/sloppy_deps.py" quoted-comma
