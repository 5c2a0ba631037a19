# why: ignores "anywhere under build/" (looks two levels deep only), does the rest well
find build -maxdepth 2 -type f -name '*.tmp' -mtime +7 | sort > deleted.txt
xargs -d '\n' rm -f -- < deleted.txt
