"""Trap: the oldest log (requests.log.2.gz) is gzip-compressed and holds 2xx API requests."""
import csv
import glob
import gzip
import io
import sys

rows = []
for name in glob.glob("logs/requests.log*"):
    if name.endswith('.gz'):
        raw = open(name, "rb").read()
        rows += csv.DictReader(io.StringIO((gzip.decompress(raw) if name.endswith(".gz") else raw).decode()))
if not (any(r['path'].startswith('/api/') and r['status'].startswith('2') for r in rows)):
    sys.exit("missing: the oldest log (requests.log.2.gz) is gzip-compressed and holds 2xx API requests")
