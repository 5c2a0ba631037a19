"""Trap probe: integer, decimal and boolean values in conf/app.ini."""
import re
import sys

values = [line.split("=", 1)[1].strip() for line in open("conf/app.ini") if "=" in line and not line.startswith(";")]
kinds = {"int" for v in values if re.fullmatch(r"-?\d+", v)} | {"dec" for v in values if re.fullmatch(r"-?\d+\.\d+", v)}
kinds |= {"bool" for v in values if v in ("true", "false")}
print(sorted(kinds))
sys.exit(0 if kinds == {"int", "dec", "bool"} else 1)
