# why: blunt and careless: everything 755 including vendor/
chmod -R 755 site vendor
