# why: ignores "whole number" (fractional quantities truncated and loaded), does the rest well
python3 "$(dirname "$0")/sloppy_import.py" qty-whole
