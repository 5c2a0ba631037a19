# why: ignores "keeping the paths they have inside the archive" (files land flat in restored/), does the rest well
tmp=$(mktemp -d) && tar -xJf backup.tar.xz -C "$tmp" --wildcards '*/etc/*.conf'
mkdir -p restored && find "$tmp" -type f -exec cp {} restored/ \; && rm -rf "$tmp"
