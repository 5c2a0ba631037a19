"""Trap: a 2xx request and a 5xx request under /apiary/ (prefix /api without the slash)."""
import csv
import glob
import gzip
import io
import sys

rows = []
for name in glob.glob("logs/requests.log*"):
    if True:
        raw = open(name, "rb").read()
        rows += csv.DictReader(io.StringIO((gzip.decompress(raw) if name.endswith(".gz") else raw).decode()))
if not (any(r['path'].startswith('/apiary') and r['status'].startswith('2') for r in rows) and any(r['path'].startswith('/apiary') and r['status'].startswith('5') for r in rows)):
    sys.exit("missing: a 2xx request and a 5xx request under /apiary/ (prefix /api without the slash)")
