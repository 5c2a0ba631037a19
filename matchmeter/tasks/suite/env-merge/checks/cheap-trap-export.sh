# why: ignores "without export" (export prefixes kept), does the rest well
python3 "$(dirname "$0")/sloppy_env.py" export
