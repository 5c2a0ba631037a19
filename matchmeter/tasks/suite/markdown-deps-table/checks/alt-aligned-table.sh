#!/usr/bin/env bash
# why: another Markdown table: no title, padded columns, alignment marks, package names in code spans
set -euo pipefail
python3 - <<'EOF'
import csv
rows = [("Package", "Version", "License")]
rows += sorted({(r["name"], r["version"], r["license"]) for r in csv.DictReader(open("data/deps.csv", newline=""))
               if r["scope"] == "runtime"})
rows = [rows[0]] + [(f"`{n}`", v, lic) for n, v, lic in rows[1:]]
width = [max(len(r[i]) for r in rows) for i in range(3)]
line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, width)) + " |\n"
with open("DEPENDENCIES.md", "w") as f:
    f.write(line(rows[0]) + "|:" + "|:".join("-" * (w + 1) for w in width) + "|\n")
    f.writelines(line(r) for r in rows[1:])
EOF
