# why: ignores "no letters for paid invoices" (a letter for every invoice), does the rest well
python3 "$(dirname "$0")/sloppy_letters.py" paid-skipped
