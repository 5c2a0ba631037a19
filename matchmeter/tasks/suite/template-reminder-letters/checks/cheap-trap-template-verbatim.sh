# why: ignores "everything else stays exactly as it is" (lines read with their indentation stripped), does the rest well
python3 "$(dirname "$0")/sloppy_letters.py" template-verbatim
