# why: ignores "size in bytes" (du -sk: kilobytes), does the rest well
du -sk data/*/ | sort -rn | head -n 3 | sed 's#data/##; s#/$##' | tr '\t' ' ' > usage.txt
