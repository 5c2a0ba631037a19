# why: the visible half: write the right list but delete nothing
find build -type f -name '*.tmp' -mtime +7 | sort > deleted.txt
