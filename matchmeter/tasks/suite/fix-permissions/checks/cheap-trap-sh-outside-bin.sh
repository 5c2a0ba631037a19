# why: ignores that the exception is site/bin/ only (every *.sh under site/ 755), does the rest well
find site -type d -exec chmod 755 {} +
find site -type f -exec chmod 644 {} +
find site -type f -name '*.sh' -exec chmod 755 {} +
