# why: ignores "don't rewrite history" (drops the bad commit with a rebase), does the rest well
bash "$ORACLE_SH" >/dev/null 2>&1 || true
cd calc
bad=$(cat ../first_bad.txt)
git reset -q --hard HEAD~1
git rebase -q --onto "$bad~1" "$bad" || { git rebase --abort; }
