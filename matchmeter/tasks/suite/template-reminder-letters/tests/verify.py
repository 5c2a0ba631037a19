"""template-reminder-letters verifier: one exactly-filled letter per unpaid invoice, none for paid ones."""

import csv

from verifylib import APP, grade, pristine

orig = pristine()
template = (orig / "templates" / "reminder.txt").read_text()
with open(orig / "data" / "invoices.csv", newline="") as fh:
    invoices = list(csv.DictReader(fh))
unpaid = [r for r in invoices if r["status"] == "unpaid"]
paid = [r for r in invoices if r["status"] != "unpaid"]


def letter(row):
    values = dict(row, amount=f"{int(row['amount_cents']) // 100}.{int(row['amount_cents']) % 100:02d}")
    text = template
    for key in ("invoice", "name", "amount", "currency", "due_date"):
        text = text.replace("{{" + key + "}}", values[key])
    return text


def path(row):
    return APP / "letters" / f"{row['invoice']}.txt"


def right(row):
    # A missing final newline is forgiven; everything else must match byte for byte.
    return path(row).is_file() and path(row).read_text().rstrip("\n") == letter(row).rstrip("\n")


# The named cases the setup plants on every seed: values with &, a backslash or CSV-quoted double quotes, and
# amounts like 1234.50 (two decimals); the indented block and the repeated placeholder are in every letter.
NAMED = [r for r in unpaid if any(c in r["name"] for c in '&\\"') or int(r["amount_cents"]) % 10 == 0]


def named_cases():
    """Every letter holding a named case is exact and no paid invoice got one: otherwise every subgoal is 0."""
    return all(right(r) for r in NAMED) and not any(path(r).exists() for r in paid)


def present():
    """Letters that exist and were filled in for their invoice (an empty file at the right name is no work)."""
    if not named_cases():
        return 0.0
    return sum(path(r).is_file() and r["invoice"] in path(r).read_text() for r in unpaid) / len(unpaid)


def exact():
    return sum(map(right, unpaid)) / len(unpaid) if named_cases() else 0.0


def no_paid():
    letters = APP / "letters"
    extra = [p for p in letters.iterdir() if p.name not in {f"{r['invoice']}.txt" for r in unpaid}] if letters.is_dir() else []
    # Paid in proportion to the letters written right: leaving paid invoices alone is otherwise free.
    return exact() if not extra else 0.0


grade({"letters_present": 0.2, "letters_exact": 0.6, "only_unpaid": 0.2},
      {"letters_present": present, "letters_exact": exact, "only_unpaid": no_paid})
