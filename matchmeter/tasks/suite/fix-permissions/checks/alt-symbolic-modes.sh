# why: symbolic modes in another order: files first (a-x), then directories and scripts via u=rwx,go=rx
find site -type f -exec chmod u=rw,go=r {} +
find site -type d -exec chmod u=rwx,go=rx {} +
find site/bin -maxdepth 1 -type f -name '*.sh' -exec chmod u=rwx,go=rx {} +
