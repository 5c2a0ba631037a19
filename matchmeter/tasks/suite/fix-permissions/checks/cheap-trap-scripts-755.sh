# why: ignores the scripts exception (site/bin/*.sh left as they are), does the rest well
find site -type d -exec chmod 755 {} +
find site -type f -exec chmod 644 {} +
