# why: ignores the dead links (left in place, no removed.txt), does the rest well
find site -xtype l | while read -r l; do
    rel=$(readlink "$l" | sed 's#.*static/##')
    [ -f "assets/$rel" ] && ln -sfr "assets/$rel" "$l"
done
