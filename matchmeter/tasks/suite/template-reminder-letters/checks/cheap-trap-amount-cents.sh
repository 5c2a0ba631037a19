# why: ignores "two decimals" (cents / 100 printed as Python prints it: 1234.5), does the rest well
python3 "$(dirname "$0")/sloppy_letters.py" amount-cents
