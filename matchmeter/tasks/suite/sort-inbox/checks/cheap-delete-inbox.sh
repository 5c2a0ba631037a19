# why: "inbox holds no files": delete them
find inbox -maxdepth 1 -type f -delete
