# why: no override logic: concatenate the three files, drop comments, sort -u (duplicates left in)
cat config/defaults.env config/production.env config/local.env | grep -Ev '^[[:space:]]*(#|$)' | sed -E 's/^[[:space:]]*export[[:space:]]+//' | LC_ALL=C sort -u > .env
