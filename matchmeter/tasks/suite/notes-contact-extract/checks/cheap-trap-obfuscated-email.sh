# why: ignores the [at]/[dot] addresses (plain ones only), does the rest well
python3 "$(dirname "$0")/sloppy_notes.py" obfuscated-email
