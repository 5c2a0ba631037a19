# why: ignores "including its subdirectories" (only .conf directly in etc/: conf.d/ missed), does the rest well
mkdir -p restored
tar -tJf backup.tar.xz | grep -E '(^|/)etc/[^/]+\.conf$' | tar -xJf backup.tar.xz -C restored -T -
