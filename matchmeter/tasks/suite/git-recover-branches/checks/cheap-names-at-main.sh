# why: the visible half: recreate every deleted branch name from the reflog, all pointing at main
cd project
git reflog --format='%gs' | sed -n 's/^checkout: moving from \([^ ]*\) to .*/\1/p' | sort -u | while read -r b; do
    git rev-parse -q --verify "refs/heads/$b" >/dev/null || git branch "$b" main
done
