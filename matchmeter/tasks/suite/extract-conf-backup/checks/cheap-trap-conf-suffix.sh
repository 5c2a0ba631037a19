# why: ignores that only names ending in .conf count (.conf.bak / .conf.example come along), does the rest well
mkdir -p restored && tar -xJf backup.tar.xz -C restored --wildcards '*/etc/*.conf*'
