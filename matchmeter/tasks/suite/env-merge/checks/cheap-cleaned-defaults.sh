# why: format without merging: defaults.env alone, comments/blank/export dropped, sorted
grep -Ev '^[[:space:]]*(#|$)' config/defaults.env | sed -E 's/^[[:space:]]*export[[:space:]]+//' | LC_ALL=C sort > .env
