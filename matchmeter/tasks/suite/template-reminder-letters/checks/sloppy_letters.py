"""A correct letter filler that skips one named case (argv[1]): the cheap-trap-*.sh shots share it."""
import csv
import os
import re
import sys

SKIP = sys.argv[1]
KEYS = ("invoice", "name", "amount", "currency", "due_date")
template = open("templates/reminder.txt").read()
if SKIP == "template-verbatim":  # read line by line as a shell `while read line` does: the indentation goes
    template = "".join(line.strip() + "\n" for line in template.splitlines())
with open("data/invoices.csv", newline="") as fh:
    if SKIP == "csv-quoted":  # split on commas: quoted fields keep their quotes
        lines = fh.read().splitlines()
        rows = [dict(zip(lines[0].split(","), line.split(","))) for line in lines[1:] if line]
    else:
        rows = list(csv.DictReader(fh))


def sed_value(value):
    """What a sed s/{{key}}/value/ makes of value: & is the matched text, a backslash escapes the next character."""
    return lambda m: re.sub(r"\\(.)|&", lambda e: e.group(1) if e.group(1) is not None else m.group(0), value)


os.makedirs("letters", exist_ok=True)
for row in rows:
    if row["status"] != "unpaid" and SKIP != "paid-skipped":
        continue
    cents = int(row["amount_cents"])
    values = dict(row, amount=str(cents / 100) if SKIP == "amount-cents" else f"{cents // 100}.{cents % 100:02d}")
    text = template
    for key in KEYS:
        pattern = re.escape("{{" + key + "}}")
        repl = sed_value(values[key]) if SKIP == "special-chars" else (lambda m, v=values[key]: v)
        text = re.sub(pattern, repl, text, count=1 if SKIP == "repeated-placeholder" else 0)
    with open(f"letters/{row['invoice']}.txt", "w") as out:
        out.write(text)
