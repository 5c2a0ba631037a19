# why: ignores "keep every other change" (settings.ini put back as before the bad commit), does the rest well
set -e
cd service
bad=$(git log -S 'max_connections = 0' --format=%H -- settings.ini | tail -n 1)
git checkout "$bad^" -- settings.ini
git commit -q -m "Restore settings.ini from before ${bad:0:10}"
