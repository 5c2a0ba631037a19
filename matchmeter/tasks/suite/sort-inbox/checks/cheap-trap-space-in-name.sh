# why: ignores names with spaces (an unquoted $(ls) loop splits them), does the rest well
mkdir -p sorted
for n in $(ls inbox); do
    case $n in *.*) e=${n##*.}; e=${e,,} ;; *) e=no_extension ;; esac
    mkdir -p "sorted/$e" && mv "inbox/$n" "sorted/$e/$n"
done
