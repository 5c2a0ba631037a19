"""sqlite-insert verifier: exactly one new row in notes, author ops, body equal to the payload; old rows untouched."""

import sqlite3

from quoting import payload as seeded_payload
from verifylib import APP, HERE, grade, pristine, seed

payload = seeded_payload(HERE / "payload.txt", seed()).decode()


def rows(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute("SELECT id, author, body FROM notes ORDER BY id").fetchall()
    finally:
        con.close()


old = rows(pristine() / "db" / "app.sqlite")


def new_rows():
    return [r for r in rows(APP / "db" / "app.sqlite") if r not in old]


def body_exact():
    return [r[2] for r in new_rows()] == [payload]


def author():
    return [r[1] for r in new_rows()] == ["ops"]


def old_kept():
    got = rows(APP / "db" / "app.sqlite")
    return body_exact() and len(new_rows()) == 1 and [r for r in got if r in old] == old


grade({"body_exact": 0.6, "author_ops": 0.2, "one_new_row_old_kept": 0.2},
      {"body_exact": body_exact, "author_ops": author, "one_new_row_old_kept": old_kept})
