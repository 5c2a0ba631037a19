# why: fix the renamed path in a copy of the patch, then let patch apply with full fuzz (context ignored)
sed -E 's#^(---|\+\+\+) ([ab])/settings\.ini#\1 \2/config/settings.ini#' patches/feature.patch > /tmp/mm-fixed.patch
cd project && patch -p1 -F3 --no-backup-if-mismatch < /tmp/mm-fixed.patch
rm -f /tmp/mm-fixed.patch
find . \( -name '*.rej' -o -name '*.orig' \) -print
