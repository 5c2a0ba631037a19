# why: Python, reading local first and keeping the first value seen (reverse order of precedence)
python3 - <<'PY'
import re
line = re.compile(r"\s*(?:export\s+)?([A-Za-z_]\w*)=(.*)")
merged = {}
for name in ("local", "production", "defaults"):
    mine = {}  # within one file the last line for a key wins
    for raw in open(f"config/{name}.env"):
        m = line.fullmatch(raw.rstrip("\n"))
        if not m or raw.lstrip().startswith("#"):
            continue
        v = m.group(2).strip()
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
            v = v[1:-1]
        mine[m.group(1)] = v
    for k, v in mine.items():
        merged.setdefault(k, v)
with open(".env", "w") as out:
    out.writelines(f"{k}={merged[k]}\n" for k in sorted(merged))
PY
