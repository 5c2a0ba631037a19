# why: ignores lower-casing the extension (TXT goes to sorted/TXT/), does the rest well
mkdir -p sorted
find inbox -maxdepth 1 -type f -print0 | while IFS= read -r -d "" f; do
    n=$(basename "$f")
    case $n in *.*) e=${n##*.} ;; *) e=no_extension ;; esac
    mkdir -p "sorted/$e" && mv "$f" "sorted/$e/$n"
done
