# why: ignores CSV quoting (rows split on commas: quoted names keep their quotes), does the rest well
python3 "$(dirname "$0")/sloppy_letters.py" csv-quoted
