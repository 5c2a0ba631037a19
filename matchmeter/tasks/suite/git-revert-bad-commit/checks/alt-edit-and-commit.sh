# why: no git revert: read the value the bad commit replaced from its parent, edit settings.ini with sed, commit
set -e
cd service
bad=$(git log -S 'max_connections = 0' --format=%H -- settings.ini | tail -n 1)
good=$(git show "$bad^:settings.ini" | sed -n 's/^max_connections = //p')
sed -i "s/^max_connections = 0\$/max_connections = $good/" settings.ini
git commit -q -am "Restore max_connections = $good (undo ${bad:0:10})"
