# why: restore everything: the whole archive into restored/
mkdir -p restored && tar -xJf backup.tar.xz -C restored
