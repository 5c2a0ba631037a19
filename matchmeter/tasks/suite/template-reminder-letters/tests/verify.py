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


def present():
    """Letters that exist and were filled in for their invoice (an empty file at the right name is no work)."""
    return sum(path(r).is_file() and r["invoice"] in path(r).read_text() for r in unpaid) / len(unpaid)


def exact():
    # A missing final newline is forgiven; everything else must match byte for byte.
    return sum(path(r).is_file() and path(r).read_text().rstrip("\n") == letter(r).rstrip("\n") for r in unpaid) / len(unpaid)


def no_paid():
    letters = APP / "letters"
    extra = [p for p in letters.iterdir() if p.name not in {f"{r['invoice']}.txt" for r in unpaid}] if letters.is_dir() else []
    # Paid in proportion to the letters written right: leaving paid invoices alone is otherwise free.
    return exact() if not extra and not any(path(r).exists() for r in paid) else 0.0


grade({"letters_present": 0.2, "letters_exact": 0.6, "only_unpaid": 0.2},
      {"letters_present": present, "letters_exact": exact, "only_unpaid": no_paid})
