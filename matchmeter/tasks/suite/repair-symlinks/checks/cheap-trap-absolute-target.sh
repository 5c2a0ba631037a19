# why: ignores the absolute /srv/www/static/ targets (only relative ../static/ rewritten), does the rest well
find site -xtype l | while read -r l; do
    t=$(readlink "$l")
    case $t in /*) continue ;; esac
    rel=${t##*static/}
    if [ -f "assets/$rel" ]; then ln -sfn "${t/static\//assets/}" "$l"; else rm -- "$l"; echo "$l" >> removed.txt; fi
done
