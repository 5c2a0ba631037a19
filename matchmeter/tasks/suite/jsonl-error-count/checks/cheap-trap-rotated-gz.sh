# why: ignores the gzipped rotated log (only the plain files counted), does the rest well
mkdir -p reports
cat logs/events.jsonl logs/events.jsonl.1 | jq -s 'map(select(.level == "error")) | group_by(.service) | map({key: .[0].service, value: length}) | from_entries' > reports/errors_by_service.json
