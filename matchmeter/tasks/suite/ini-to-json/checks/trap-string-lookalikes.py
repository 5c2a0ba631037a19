"""Trap probe: a value int() or float() accepts that is no integer or decimal number (stays a string)."""
import re
import sys

values = [line.split("=", 1)[1].strip() for line in open("conf/app.ini") if "=" in line and not line.startswith(";")]
hits = []
for v in values:
    if re.fullmatch(r"-?\d+(\.\d+)?", v):
        continue
    for conv in (int, float):
        try:
            conv(v)
            hits.append(v)
            break
        except ValueError:
            pass
print(hits or "no string that int() or float() would take")
sys.exit(0 if hits else 1)
