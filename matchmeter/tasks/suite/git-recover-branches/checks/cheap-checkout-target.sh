# why: off by one: restore each deleted branch (merged ones too) at the commit of the reflog entry that left it
cd project
git reflog --format='%H %gs' | awk '$2 == "checkout:" && $4 == "from" && !seen[$5]++ { print $5, $1 }' | while read -r b sha; do
    git rev-parse -q --verify "refs/heads/$b" >/dev/null || git branch "$b" "$sha"
done
