# why: ignores that the name must end in .tmp (any old file with ".tmp" in its name goes), does the rest well
find build -type f -mtime +7 | grep -F '.tmp' | sort > deleted.txt
xargs -d '\n' rm -f -- < deleted.txt
