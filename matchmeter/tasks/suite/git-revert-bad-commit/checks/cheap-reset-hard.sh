# why: what the instruction forbids: reset --hard to before the bad commit (history dropped)
git -C service reset -q --hard "$(git -C service log -S 'max_connections = 0' --format=%H -- settings.ini | tail -n 1)^"
