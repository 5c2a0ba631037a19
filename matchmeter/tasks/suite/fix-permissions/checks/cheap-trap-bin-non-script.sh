# why: ignores that only *.sh in site/bin/ are scripts (site/bin/* all 755), does the rest well
find site -type d -exec chmod 755 {} +
find site -type f -exec chmod 644 {} +
chmod 755 site/bin/*
