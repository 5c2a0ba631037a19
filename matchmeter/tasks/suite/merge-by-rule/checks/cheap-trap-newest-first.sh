# why: ignores "newest date first" (main's entries first, then the release's), does the rest well
cd shop
git merge -q --no-edit "$(git for-each-ref --format='%(refname:short)' refs/heads/release/)" >/dev/null 2>&1
python3 "$(dirname "$0")/sloppy_merge.py" newest-first
git add requirements.txt CHANGELOG.md VERSION && git commit -q --no-edit
