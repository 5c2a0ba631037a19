# why: any .conf anywhere (share/samples too), not only under etc/
mkdir -p restored && tar -xJf backup.tar.xz -C restored --wildcards '*.conf'
