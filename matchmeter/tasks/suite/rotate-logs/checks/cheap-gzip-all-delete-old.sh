# why: ignore both rules: gzip every log including fresh ones, then delete every archive older than 30 days
gzip -f logs/* 2>/dev/null
find logs -name '*.gz' -mtime +30 -delete
