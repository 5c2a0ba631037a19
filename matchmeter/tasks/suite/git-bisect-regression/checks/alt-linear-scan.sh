# why: no bisect: scan commits oldest-first in a scratch worktree, skip ones that do not import; undo with git apply -R
set -e
cd calc
git worktree add -q --detach ../scan HEAD
bad=""
for c in $(git rev-list --reverse HEAD); do
    git -C ../scan checkout -q "$c"
    (cd ../scan && python3 -c "import pricing" 2>/dev/null) || continue
    if ! (cd ../scan && ./check.sh >/dev/null 2>&1); then bad=$c; break; fi
done
git worktree remove --force ../scan
echo "$bad" > ../first_bad.txt
git show "$bad" | git apply -R --index
git commit -q -m "Undo the pricing regression from ${bad:0:10}"
./check.sh
