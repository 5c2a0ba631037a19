# why: ignores that a branch was left twice (its first leave taken as its tip), does the rest well
cd project
git reflog --format='%H %gs' | tac | awk '$2 == "checkout:" && $4 == "from" && !($5 in tip) { tip[$5] = last } { last = $1 } END { for (b in tip) print b, tip[b] }' | while read -r b sha; do
    git rev-parse -q --verify "refs/heads/$b" >/dev/null && continue
    git merge-base --is-ancestor "$sha" main && continue
    git branch "$b" "$sha"
done
