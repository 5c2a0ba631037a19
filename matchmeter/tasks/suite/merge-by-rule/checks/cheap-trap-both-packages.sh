# why: ignores "keep every package from both sides" (a package only the release adds is dropped), does the rest well
cd shop
git merge -q --no-edit "$(git for-each-ref --format='%(refname:short)' refs/heads/release/)" >/dev/null 2>&1
python3 "$(dirname "$0")/sloppy_merge.py" both-packages
git add requirements.txt CHANGELOG.md VERSION && git commit -q --no-edit
