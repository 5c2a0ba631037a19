# why: ignores "the part after the last dot" (a.tar.gz goes to sorted/tar.gz/), does the rest well
mkdir -p sorted
find inbox -maxdepth 1 -type f -print0 | while IFS= read -r -d "" f; do
    n=$(basename "$f")
    case $n in *.*) e=${n#*.}; e=${e,,} ;; *) e=no_extension ;; esac
    mkdir -p "sorted/$e" && mv "$f" "sorted/$e/$n"
done
