"""A correct .env merge that skips one named case (argv[1]): the cheap-trap-*.sh shots share it."""
import re
import sys

SKIP = sys.argv[1]
LINE = re.compile(r"\s*(export\s+)?([A-Za-z_]\w*)=(.*)")
order = ("defaults", "local", "production") if SKIP == "local-wins" else ("defaults", "production", "local")
merged = {}
for name in order:
    mine = {}
    for raw in open(f"config/{name}.env"):
        m = LINE.fullmatch(raw.rstrip("\n"))
        if not m or raw.lstrip().startswith("#"):
            continue
        key = (m.group(1) or "") + m.group(2) if SKIP == "export" else m.group(2)
        v = m.group(3).strip()
        if SKIP == "equals-in-value":  # cut -d= -f2
            v = v.split("=")[0]
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
            v = v[1:-1]
        if SKIP == "empty-override" and v == "":
            continue
        if SKIP == "later-line-wins":
            mine.setdefault(key, v)
        else:
            mine[key] = v
    merged.update(mine)
with open(".env", "w") as out:
    out.writelines(f"{k}={merged[k]}\n" for k in sorted(merged))
