"""Trap: a 2xx API request whose status is not 200."""
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
if not (any(r['path'].startswith('/api/') and r['status'].startswith('2') and r['status'] != '200' for r in rows)):
    sys.exit("missing: a 2xx API request whose status is not 200")
