# why: ignores that only the event's own level counts (grep for "level": "error" also hits ctx.level), does the rest well
mkdir -p reports
zcat -f logs/events.jsonl* | grep '"level": "error"' | jq -s 'group_by(.service) | map({key: .[0].service, value: length}) | from_entries' > reports/errors_by_service.json
