"""csv-clean-contacts verifier: parsed rows compared field by field against the expected cleaning."""

import csv
import io

from verifylib import grade, pristine, read

HEADER = ["name", "email", "phone", "signup_date"]
with open(pristine() / "data" / "contacts.csv", newline="", encoding="utf-8") as fh:
    source = list(csv.reader(fh))[1:]
expected, seen = [], set()
for name, email, phone, date in source:
    email = email.strip().lower()
    if email in seen:
        continue
    seen.add(email)
    d, m, y = date.strip().split("/")
    expected.append([name, email, phone, f"{y}-{int(m):02d}-{int(d):02d}"])
by_email = {row[1]: row for row in expected}


def parsed():
    text = read("data/contacts_clean.csv")
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], [r for r in rows[1:] if r]


def valid():
    header, rows = parsed()
    return header == HEADER and bool(rows) and all(len(r) == 4 for r in rows)


def emails():
    _, rows = parsed()
    return sum(r[1] == r[1].strip().lower() and r[1] in by_email for r in rows) / max(len(rows), len(expected))


def dates():
    _, rows = parsed()
    good = sum(r[1].strip().lower() in by_email and r[3] == by_email[r[1].strip().lower()][3] for r in rows)
    return good / max(len(rows), len(expected))


def deduplicated():
    _, rows = parsed()
    cleaned = [r[1].strip().lower() for r in rows]
    return len(cleaned) == len(set(cleaned)) and set(cleaned) == set(by_email)


def exact():
    return parsed()[1] == expected


grade({"valid_csv": 0.1, "emails": 0.2, "dates": 0.25, "deduplicated": 0.2, "rows_exact": 0.25},
      {"valid_csv": valid, "emails": emails, "dates": dates, "deduplicated": deduplicated, "rows_exact": exact})
