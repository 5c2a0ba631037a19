# why: one blunt command: everything under site/ 755
chmod -R 755 site
