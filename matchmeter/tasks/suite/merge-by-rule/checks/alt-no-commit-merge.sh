# why: merge --no-commit, resolve with sort -V/awk for the pins and Python for the changelog, in the other order
set -e
cd shop
rel=$(git for-each-ref --format='%(refname:short)' refs/heads/release/)
git merge -q --no-commit --no-ff "$rel" || true
git show "main:VERSION" > VERSION
python3 - "$rel" <<'PY'
import re, subprocess, sys
def show(rev):
    return subprocess.run(["git", "show", f"{rev}:CHANGELOG.md"], capture_output=True, text=True, check=True).stdout
seen = {}
for rev in ("main", sys.argv[1]):
    for block in re.split(r"^(?=## )", show(rev), flags=re.M)[1:]:
        date, _, body = block.partition("\n")
        seen[date[3:].strip()] = body.strip()
with open("CHANGELOG.md", "w") as f:
    f.write("# Changelog\n")
    for date in sorted(seen, reverse=True):
        f.write(f"\n## {date}\n{seen[date]}\n")
PY
{ git show main:requirements.txt; git show "$rel:requirements.txt"; } | grep '==' | sort -t= -k1,1 -k3,3V \
  | awk -F'==' '{ v[$1] = $2 } END { for (p in v) print p "==" v[p] }' \
  | python3 -c 'import sys; print("".join(sorted(sys.stdin.readlines(), key=lambda l: l.split("==")[0].lower())), end="")' > requirements.txt
git add VERSION CHANGELOG.md requirements.txt
git commit -q --no-edit
