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


def traps():
    """The named traps (task.toml) all handled: every contact with a comma in its name, a day above 12, an
    unpadded or a day<->month-ambiguous date, or a duplicate is its first row cleaned, once. A sloppy answer
    fails one and is paid nothing, so skipping a trap never pays."""
    counts = {}
    for _, email, _, _ in source:
        counts[email.strip().lower()] = counts.get(email.strip().lower(), 0) + 1
    try:
        got = [r[1].strip().lower() for r in parsed()[1]]
        rows = parsed()[1]
    except Exception:  # noqa: BLE001 - no readable output handles no trap
        return False
    for row in expected:
        d, m = row[3][8:], row[3][5:7]
        raw = next(s[3] for s in source if s[1].strip().lower() == row[1])
        if "," in row[0] or int(d) > 12 or (int(d) <= 12 and int(m) <= 12 and d != m) or len(raw) < 10 or counts[row[1]] > 1:
            if got.count(row[1]) != 1 or rows[got.index(row[1])] != row:
                return False
    return True


def gated(check):
    return lambda: check() if traps() else 0.0


grade({"valid_csv": 0.1, "emails": 0.2, "dates": 0.25, "deduplicated": 0.2, "rows_exact": 0.25},
      {"valid_csv": gated(valid), "emails": gated(emails), "dates": gated(dates), "deduplicated": gated(deduplicated),
       "rows_exact": gated(exact)})
