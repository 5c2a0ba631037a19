"""A correct DEPENDENCIES.md writer that skips one named case (argv[1]): the cheap-trap-*.sh shots share it."""
import csv
import sys

SKIP = sys.argv[1]
if SKIP == "quoted-comma":  # splits every line on "," (awk -F, / cut -d,): a quoted note with a comma shifts columns
    lines = open("data/deps.csv").read().splitlines()
    head = lines[0].split(",")
    rows = [dict(zip(head, line.split(","))) for line in lines[1:] if line]
else:
    rows = list(csv.DictReader(open("data/deps.csv", newline="")))
if SKIP != "dev-only":
    rows = [r for r in rows if r.get("scope") == "runtime"]
items = [(r["name"], r["version"], r["license"]) for r in rows]
if SKIP != "one-row":
    items = list(dict.fromkeys(items))
if SKIP != "sorted":
    items.sort()
head = ("name", "version", "license") if SKIP == "column-names" else ("Package", "Version", "License")
with open("DEPENDENCIES.md", "w") as f:
    f.write("# Dependencies\n\n| " + " | ".join(head) + " |\n|---|---|---|\n")
    f.writelines(f"| {n} | {v} | {lic} |\n" for n, v, lic in items)
