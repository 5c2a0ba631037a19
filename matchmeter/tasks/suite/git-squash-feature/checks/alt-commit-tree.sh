# why: plumbing instead of reset: commit-tree of the old tip's tree on the branch point, then move the ref
set -e
cd app
b=$(git for-each-ref --format='%(refname:short)' refs/heads/feature/)
base=$(git merge-base main "$b")
msg=$(git log --reverse --format=%s "$base..$b" | head -n 1)
c=$(git commit-tree "$b^{tree}" -p "$base" -m "$msg")
git update-ref "refs/heads/$b" "$c"
