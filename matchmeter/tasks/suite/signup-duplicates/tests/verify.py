"""signup-duplicates verifier: emails are the same person after trimming and lower-casing."""

import csv
import json
from collections import Counter

from verifylib import close, grade, pristine, read

with open(pristine() / "data" / "signups.csv", newline="") as fh:
    emails = [row["email"].strip().lower() for row in csv.DictReader(fh)]
counts = Counter(emails)
rows, unique = len(emails), len(counts)


def answer():
    return json.loads(read("answer.json"))


grade({"rows": 0.1, "unique_people": 0.35, "duplicate_rate": 0.35, "most_repeated": 0.2},
      {"rows": lambda: int(answer()["rows"]) == rows,
       "unique_people": lambda: int(answer()["unique_people"]) == unique,
       "duplicate_rate": lambda: close(answer()["duplicate_rate"], (rows - unique) / rows, 1e-4),
       # The most repeated address stands out however it is normalised: it pays only beside the right count.
       "most_repeated": lambda: str(answer()["most_repeated"]).strip().lower() == counts.most_common(1)[0][0]
       and int(answer()["unique_people"]) == unique})
