#!/usr/bin/env bash
# Seeds data/signups.csv: people who signed up more than once, the repeats typed with different
# case and stray spaces in the email; one address repeats clearly more often than any other.
set -euo pipefail
python3 - "${MM_SEED:?MM_SEED must be set}" <<'PY'
import csv
import random
import sys
from pathlib import Path

rng = random.Random(int(sys.argv[1]))
first = ["ada", "ben", "cleo", "dev", "emma", "finn", "gia", "hugo", "iris", "jon", "kira", "liam", "mia",
         "nils", "omar", "pia", "quinn", "rosa", "sam", "tara", "uma", "vik", "wen", "yara", "zoe"]
domains = ["example.com", "mail.test", "inbox.example", "post.test"]
people = sorted({f"{rng.choice(first)}.{rng.choice(first)}{rng.randint(1, 99)}@{rng.choice(domains)}"
                 for _ in range(rng.randint(120, 220))})


def typed(email):
    """How a person might type their address again."""
    roll = rng.random()
    if roll < 0.3:
        return email.upper() if rng.random() < 0.3 else email.capitalize()
    if roll < 0.5:
        return " " + email + " "
    return email


rows = []
for email in people:
    repeats = 1 + (rng.random() < 0.25) * rng.randint(1, 3)
    rows += [typed(email) for _ in range(repeats)]
star = rng.choice(people)
rows += [typed(star) for _ in range(3)]
rows += [star.upper(), " " + star, star.capitalize() + " "]  # on every seed: other case, stray spaces, both
rng.shuffle(rows)
Path("data").mkdir(exist_ok=True)
with open("data/signups.csv", "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["signup_id", "created_at", "email", "plan"])
    for i, email in enumerate(rows):
        w.writerow([i + 1, f"2024-04-{1 + i * 29 // len(rows):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
                    email, rng.choice(["free", "free", "pro", "team"])])
PY
