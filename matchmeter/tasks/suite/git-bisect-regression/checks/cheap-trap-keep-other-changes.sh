# why: ignores "keep every other change" (pricing.py put back as it was before the bad commit), does the rest well
bash "$ORACLE_SH" >/dev/null 2>&1 || true
cd calc
bad=$(cat ../first_bad.txt)
git reset -q --hard HEAD~1
git checkout "$bad~1" -- pricing.py
git commit -q -m "Restore pricing.py from before the regression"
