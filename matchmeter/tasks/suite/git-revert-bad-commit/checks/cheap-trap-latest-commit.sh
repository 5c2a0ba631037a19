# why: ignores that the message looks innocent (reverts the newest commit touching settings.ini), does the rest well
cd service
git revert --no-edit "$(git log -1 --format=%H -- settings.ini)" || git revert --abort
