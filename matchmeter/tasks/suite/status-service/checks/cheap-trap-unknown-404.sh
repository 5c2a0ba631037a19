# why: ignores "any unknown sku -> http 404" (unknown SKUs get 200 and an error body), does the rest well
python3 "$(dirname "$0")/sloppy_status.py" unknown-404
