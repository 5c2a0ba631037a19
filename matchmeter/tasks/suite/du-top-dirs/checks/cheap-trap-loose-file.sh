# why: ignores that only directories are projects (du over data/* counts the loose file), does the rest well
du -sb data/* | sort -rn | head -n 3 | sed 's#data/##' | tr '\t' ' ' > usage.txt
